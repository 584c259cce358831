/// A generic-password item (`kSecClassGenericPassword`): its key, its secret bytes
/// (`kSecValueData`) and its class (`kSecAttrAccessible`).
///
/// Its descriptions and mirror show the byte count, never the bytes: test failures and
/// reports must not print tokens.
public struct KeychainItem: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var key: KeychainItemKey
    public var data: [UInt8]
    public var accessibility: KeychainAccessibility

    public init(key: KeychainItemKey, data: [UInt8], accessibility: KeychainAccessibility) {
        self.key = key
        self.data = data
        self.accessibility = accessibility
    }

    /// What a report may show of the item.
    public var summary: KeychainItemSummary {
        KeychainItemSummary(key: key, accessibility: accessibility, byteCount: data.count)
    }

    public var description: String { summary.description }
    public var debugDescription: String { "KeychainItem(\(summary))" }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["key": key, "accessibility": accessibility, "byteCount": data.count],
            displayStyle: .struct)
    }
}
