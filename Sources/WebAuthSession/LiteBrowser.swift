public import HTTPClient
public import HTTPCore
public import WorldVocabulary

/// The `lite` engine: a device's system browser as a headless HTTP client. libcurl follows the
/// redirects and keeps the cookies, libxml2 reads the forms, and the person submits them; no
/// script runs. Fast (a sign-in in milliseconds) and enough for issuers whose pages are plain
/// HTML forms, such as the embedded one.
///
/// One cookie store that every shared (non-ephemeral) session reads and fills, so that an
/// issuer's SSO cookie outlives each app sign-in, and a way to reach the network with any jar.
/// The transport is built per jar so the device can wrap it (network faults, recording):
/// ephemeral sessions get a fresh jar through the same builder.
public struct LiteBrowser: WebSheetEngine {
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

    public var engine: BrowserEngine { .lite }

    /// The transport a session with `jar` sends through.
    public func transport(for jar: CookieJar) -> any HTTPTransport { makeTransport(jar) }

    public func navigate(
        _ session: WebAuthenticationSession, as user: WebUserScript, handle: WebAuthenticationHandle
    ) async -> Result<String, WebAuthenticationError>? {
        let jar = session.prefersEphemeralWebBrowserSession ? CookieJar(clock: cookieJar.clock) : cookieJar
        var navigation = WebNavigation(
            startURL: session.url, callback: session.callback, limits: session.limits, user: user,
            purpose: session.purpose, transport: transport(for: jar), handle: handle)
        return await navigation.run()
    }

    public func cookies() async -> [Cookie] { cookieJar.cookies() }
}
