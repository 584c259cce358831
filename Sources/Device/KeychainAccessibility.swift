/// When a keychain item can be read or written: Apple's `kSecAttrAccessible…` classes.
///
/// Each class names the data-protection class key that encrypts the item (Apple Platform
/// Security, "Keychain data protection classes"): the when-unlocked classes need the device
/// unlocked now, the after-first-unlock classes need one unlock since boot, and
/// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` also needs a passcode to exist at all.
/// `…ThisDeviceOnly` items never leave the device in a backup; the simulator keeps the
/// distinction for reports.
public enum KeychainAccessibility: String, CaseIterable, Comparable, Hashable, Sendable {
    /// `kSecAttrAccessibleWhenUnlocked`, the default when a query names none.
    case whenUnlocked
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly
    /// `kSecAttrAccessibleAfterFirstUnlock`, what background token refresh needs.
    case afterFirstUnlock
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`: only while unlocked, only with a
    /// passcode; removing the passcode destroys these items.
    case whenPasscodeSetThisDeviceOnly
    /// `kSecAttrAccessibleAlways`, deprecated since iOS 12 but still honoured.
    case always

    /// Apple's constant for this class.
    public var constantName: String {
        switch self {
        case .whenUnlocked: "kSecAttrAccessibleWhenUnlocked"
        case .whenUnlockedThisDeviceOnly: "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
        case .afterFirstUnlock: "kSecAttrAccessibleAfterFirstUnlock"
        case .afterFirstUnlockThisDeviceOnly: "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
        case .whenPasscodeSetThisDeviceOnly: "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"
        case .always: "kSecAttrAccessibleAlways"
        }
    }

    /// Whether the item stays on this device (is left out of backups and migration).
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly:
            true
        case .whenUnlocked, .afterFirstUnlock, .always: false
        }
    }

    public static func < (lhs: KeychainAccessibility, rhs: KeychainAccessibility) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
