/// What the SDK asks of the system browser sheet: `ASWebAuthenticationSession`'s contract.
///
/// The SDK hands over the authorize URL and the redirect URI it expects, and gets back the
/// callback URL exactly as the browser saw it. How the browser got there (redirects, cookies,
/// forms, a user typing a password) is none of the SDK's business.
public protocol WebAuthenticationUserAgent: Sendable {
    /// Whether a foreground-active scene can present the sheet now.
    func canPresent() -> Bool
    /// Waits until a scene is foreground-active; `false` when that did not happen in time.
    func waitUntilPresentable() async -> Bool
    /// Presents the sheet at `request.url` and returns the callback URL the browser reached.
    func authenticate(_ request: WebAuthenticationRequest) async throws(WebAuthenticationFailure) -> String
    /// Dismisses the sheet that is up, if any; its `authenticate` then fails with `canceledLogin`.
    func cancelActiveSession()
}

/// One presentation of the sheet.
public struct WebAuthenticationRequest: Sendable, Hashable {
    /// What the sheet is opened for; the person at the phone sees the difference.
    public enum Purpose: String, Sendable, Hashable {
        /// An authorization request (RFC 6749 §4.1.1): sign in, consent.
        case signIn
        /// An end-session request (OpenID Connect RP-Initiated Logout 1.0 §2): the issuer may ask
        /// the person to confirm, then shows its own page or redirects to the post-logout URI.
        case signOut
    }

    /// The request URL: an authorization request or an end-session request.
    public var url: String
    /// The redirect URI the session must stop at: a private-use scheme, a claimed `https` link or
    /// a loopback URL (RFC 8252 §7).
    public var redirectURI: String
    /// `prefersEphemeralWebBrowserSession`: no cookies shared with the system browser.
    public var prefersEphemeralSession: Bool
    public var purpose: Purpose

    public init(url: String, redirectURI: String, prefersEphemeralSession: Bool, purpose: Purpose = .signIn) {
        self.url = url
        self.redirectURI = redirectURI
        self.prefersEphemeralSession = prefersEphemeralSession
        self.purpose = purpose
    }
}

/// Why the sheet did not reach the callback (`ASWebAuthenticationSessionError` and the rest).
public struct WebAuthenticationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The user dismissed the sheet (code 1).
        case canceledLogin
        /// No foreground-active scene to present from (code 3).
        case presentationContextInvalid
        /// Another sheet of this app is still up.
        case alreadyPresenting
        /// The browser failed: network, an error page, a timeout.
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
