/// One line of a keychain dump: what `SecItemCopyMatching` returns with `kSecReturnAttributes`
/// and without `kSecReturnData`, i.e. everything about an item except its secret bytes.
public struct KeychainItemSummary: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var key: KeychainItemKey
    public var accessibility: KeychainAccessibility
    public var byteCount: Int

    public init(key: KeychainItemKey, accessibility: KeychainAccessibility, byteCount: Int) {
        self.key = key
        self.accessibility = accessibility
        self.byteCount = byteCount
    }

    public static func < (lhs: KeychainItemSummary, rhs: KeychainItemSummary) -> Bool {
        lhs.key < rhs.key
    }

    public var description: String { "\(key) \(accessibility.rawValue) \(byteCount) bytes" }
}
