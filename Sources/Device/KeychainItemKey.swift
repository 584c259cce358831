/// Where a generic-password item lives: its primary key in the keychain.
///
/// A `kSecClassGenericPassword` item is unique by `kSecAttrAccessGroup`, `kSecAttrService` and
/// `kSecAttrAccount` (Apple, "Item class keys and values"). Sorted in that order for reports.
public struct KeychainItemKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var accessGroup: String
    public var service: String
    public var account: String

    public init(accessGroup: String, service: String, account: String) {
        self.accessGroup = accessGroup
        self.service = service
        self.account = account
    }

    public static func < (lhs: KeychainItemKey, rhs: KeychainItemKey) -> Bool {
        (lhs.accessGroup, lhs.service, lhs.account) < (rhs.accessGroup, rhs.service, rhs.account)
    }

    public var description: String { "\(accessGroup)/\(service)/\(account)" }
}
