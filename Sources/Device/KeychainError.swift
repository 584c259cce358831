public import Errors

/// A keychain call's failure with the `OSStatus` that `SecItemAdd`, `SecItemCopyMatching`,
/// `SecItemUpdate` and `SecItemDelete` return for it (Security framework, `SecBase.h`).
///
/// Messages name the item by access group, service and account, never by its data.
public struct KeychainError: CodedError {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `errSecItemNotFound`: no item matches.
        case itemNotFound
        /// `errSecDuplicateItem`: an item with that access group, service and account exists.
        case duplicateItem
        /// `errSecInteractionNotAllowed`: the item's class key is not available (device locked,
        /// or not unlocked since boot).
        case interactionNotAllowed
        /// `errSecAuthFailed`: the item's class cannot be used at all on this device, as the
        /// passcode-set class without a passcode.
        case authFailed
        /// `errSecParam`: a parameter is not valid.
        case param
        /// `errSecIO`: the keychain's storage could not be read or written.
        case io

        /// Apple's `OSStatus` value.
        public var status: Int32 {
            switch self {
            case .itemNotFound: -25_300
            case .duplicateItem: -25_299
            case .interactionNotAllowed: -25_308
            case .authFailed: -25_293
            case .param: -50
            case .io: -36
            }
        }

        /// Apple's constant name (`errSecItemNotFound`).
        public var constantName: String {
            switch self {
            case .itemNotFound: "errSecItemNotFound"
            case .duplicateItem: "errSecDuplicateItem"
            case .interactionNotAllowed: "errSecInteractionNotAllowed"
            case .authFailed: "errSecAuthFailed"
            case .param: "errSecParam"
            case .io: "errSecIO"
            }
        }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The `OSStatus` a real keychain returns.
    public var status: Int32 { code.status }

    public var description: String { "\(code.constantName) (\(code.status)): \(message)" }
}
