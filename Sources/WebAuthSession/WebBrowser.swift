public import HTTPClient
public import HTTPCore

/// A device's system browser as `ASWebAuthenticationSession` uses it: one cookie store that
/// every shared (non-ephemeral) session reads and fills, so that an issuer's SSO cookie
/// outlives each app sign-in, and a way to reach the network with any jar.
///
/// The transport is built per jar so the device can wrap it (network faults, recording):
/// ephemeral sessions get a fresh jar through the same builder.
public struct WebBrowser: Sendable {
    /// The system browser's cookies, shared by every non-ephemeral session on the device.
    public let cookieJar: CookieJar
    private let makeTransport: @Sendable (CookieJar) -> any HTTPTransport

    public init(
        cookieJar: CookieJar = CookieJar(),
        transport makeTransport: @escaping @Sendable (CookieJar) -> any HTTPTransport
    ) {
        self.cookieJar = cookieJar
        self.makeTransport = makeTransport
    }

    /// A browser whose sessions all run on one libcurl loop, each with its own jar.
    public init(cookieJar: CookieJar = CookieJar(), curl: CurlTransport) {
        self.init(cookieJar: cookieJar) { jar in curl.scoped(to: jar) }
    }

    /// The transport a session with `jar` sends through.
    public func transport(for jar: CookieJar) -> any HTTPTransport { makeTransport(jar) }
}
