/// Why a native authorization gave no credential: `ASAuthorizationError`, with Apple's codes.
public struct AppleAuthorizationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `ASAuthorizationError.Code`, with Apple's numbers.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// No Apple ID is signed in on the device, or another failure the system does not explain.
        case unknown = 1000
        /// The user closed the sheet.
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        /// The request could not be performed (a malformed request, an app of another team).
        case failed = 1004
        case notInteractive = 1005
    }

    /// The error domain apps see.
    public static let domain = "com.apple.AuthenticationServices.AuthorizationError"

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The user canceled the sheet (1001).
    public static let canceled = AppleAuthorizationError(.canceled, "The user canceled the authorization.")
    /// No Apple ID is signed in on the device (1000).
    public static let noAccount = AppleAuthorizationError(
        .unknown, "No Apple ID is signed in on this device; the system asks to sign in in Settings.")

    public var description: String { "\(Self.domain) error \(code.rawValue): \(message)" }
}
