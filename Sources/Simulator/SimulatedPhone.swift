public import AppleID
public import Device
public import HTTPClient
public import HTTPCore
import Locking
public import WebAuthSession
public import WebKitSession
public import WorldVocabulary

/// A simulated iPhone: the device model (keychain, lifecycle, clock, network), its system
/// browser with the cookie jar every shared web session uses, its Apple ID, and its apps.
public final class SimulatedPhone: Sendable {
    public let name: String
    public let device: SimulatedDevice
    /// The system browser in the `lite` engine: one jar shared by every non-ephemeral sheet of
    /// every app.
    public let browser: LiteBrowser
    /// The system browser in the `webkit` engine, when the world has one: its own shared store.
    public let webKitBrowser: WebKitBrowser?
    /// Where native Sign in with Apple sends its authorizations (the simulated Apple).
    public let appleURL: String?
    private let state = Mutex<State>(State())
    private let appleTransport: any HTTPTransport

    private struct State {
        var appleAccount: AppleIDAccount?
        var apps: [String: SimulatedApp] = [:]
    }

    /// - Parameters:
    ///   - device: a device whose `network` wraps a `CookieJarRoutingTransport` (as
    ///     `SimulatedPhone.makeDevice` builds it), so browser sheets keep their cookies.
    init(
        name: String, device: SimulatedDevice, appleURL: String?, curl: CurlTransport,
        appleTransport: (any HTTPTransport)? = nil, exchangeLog: ExchangeLog = ExchangeLog(),
        webKit: WebKitEngine? = nil
    ) {
        self.name = name
        self.device = device
        self.appleURL = appleURL
        let scheduler = device.scheduler
        self.appleTransport = RecordingTransport(
            inner: appleTransport ?? curl, source: "apple", log: exchangeLog
        ) {
            scheduler.epochSeconds * 1000 + scheduler.now.milliseconds
        }
        let network = device.network
        browser = LiteBrowser(cookieJar: CookieJar(clock: device.clock)) { jar in
            BrowserSessionTransport(jar: jar, curl: curl, network: network)
        }
        // WebKit keeps its own cookies and sends them itself: its proxy forwards through the
        // device's network with no jar of ours.
        webKitBrowser = webKit.map { WebKitBrowser(webKit: $0, network: network) }
    }

    /// The browser a sheet in `engine` runs in.
    func sheetEngine(_ engine: BrowserEngine) throws(WebAuthenticationError) -> any WebSheetEngine {
        switch engine {
        case .lite:
            return browser
        case .webkit:
            guard let webKitBrowser else {
                throw WebAuthenticationError(
                    .browserUnavailable,
                    "this simulated phone has no WebKit engine: the run was started without one")
            }
            return webKitBrowser
        }
    }

    /// Opens a web authentication sheet at `url` in `engine`'s browser and lets `person` act in
    /// it, as an app that presents `ASWebAuthenticationSession` itself: the sheet ends at the
    /// callback `redirectURI` stands for, or fails (an error page, a form the person refuses,
    /// the five-minute deadline of the world's clock).
    ///
    /// - Throws: when the sheet cannot open: no browser in `engine`, a redirect URI that cannot
    ///   be a callback.
    public func openSheet(
        url: String, redirectURI: String, engine: BrowserEngine, ephemeral: Bool, person: WebUserScript,
        purpose: WebAuthenticationSession.Purpose = .signIn
    ) async throws(WebAuthenticationError) -> WebAuthenticationOutcome {
        guard let callback = WebAuthenticationCallback(redirectURI: redirectURI) else {
            throw WebAuthenticationError(.invalidURL, "the redirect URI \(redirectURI) cannot be a callback")
        }
        let session = WebAuthenticationSession(
            url: url, callback: callback, browser: try sheetEngine(engine),
            prefersEphemeralWebBrowserSession: ephemeral, purpose: purpose)
        let scheduler = device.scheduler
        let deadline = WebSessionDeadline(arm: { fire in
            let timer = scheduler.schedule(after: .seconds(300), fire)
            return { _ = timer.cancel() }
        })
        let handle = try session.start(as: person, in: WebPresentationContext(), deadline: deadline)
        return await handle.outcome()
    }

    /// The cookies of the shared store of `engine`'s browser.
    public func browserCookies(_ engine: BrowserEngine) async -> [Cookie] {
        switch engine {
        case .lite: browser.cookieJar.cookies()
        case .webkit: await webKitBrowser?.cookies() ?? []
        }
    }

    /// The Apple ID signed in on the device (Settings › Apple ID).
    public var appleAccount: AppleIDAccount? {
        get { state.withLock { $0.appleAccount } }
        set { state.withLock { $0.appleAccount = newValue } }
    }

    /// The app with this bundle id, once `addApp` made it.
    public func app(_ bundleID: String) -> SimulatedApp? { state.withLock { $0.apps[bundleID] } }

    public var apps: [SimulatedApp] { state.withLock { $0.apps.values.sorted { $0.bundleID < $1.bundleID } } }

    /// Installs an app configured for an issuer (not launched yet).
    @discardableResult
    public func install(_ configuration: AppConfiguration) throws(DeviceError) -> SimulatedApp {
        if let existing = app(configuration.bundleID) {
            _ = try device.install(configuration.bundleID)
            return existing
        }
        _ = try device.install(configuration.bundleID)
        let app = SimulatedApp(configuration: configuration, phone: self)
        state.withLock { $0.apps[configuration.bundleID] = app }
        return app
    }

    /// Native Sign in with Apple as this device performs it for `bundleID`.
    func appleAuthorizer(bundleID: String, cancels: Bool) -> DeviceAppleAccount? {
        guard let appleURL, let account = appleAccount else { return nil }
        return DeviceAppleAccount(
            account: account, bundleID: bundleID, appleURL: appleURL, transport: appleTransport,
            cancels: cancels)
    }

    /// `getCredentialState(forUserID:)` for `bundleID`, as this device asks Apple. Nil when the
    /// phone has no Apple to ask.
    func appleCredentialCheck(bundleID: String) -> DeviceAppleCredentialCheck? {
        guard let appleURL else { return nil }
        return DeviceAppleCredentialCheck(bundleID: bundleID, appleURL: appleURL, transport: appleTransport)
    }

    /// Posts `ASAuthorizationAppleIDProvider.credentialRevokedNotification` to the app, as the
    /// system does when the credentials of the phone's Apple ID for the app have been revoked:
    /// the user stopped using Apple ID with it, or Apple revoked the authorization. Only a
    /// running process that observes it is told (its observers run to the end before this
    /// returns); an app that is not running learns at its next launch, if it asks.
    ///
    /// - Returns: whether a running process observed the notification.
    @discardableResult
    public func postAppleCredentialRevoked(bundleID: String) async -> Bool {
        guard let app = app(bundleID) else { return false }
        return await app.deliverAppleCredentialRevoked()
    }

    /// Reboots the device: every app is terminated (requests in flight abandoned), the
    /// keychain is locked until the first unlock.
    public func reboot() throws(DeviceError) {
        for app in apps { app.dropProcess() }
        _ = try device.reboot()
        for app in apps { app.syncPresentation() }
    }

    public func lock() throws(DeviceError) {
        _ = try device.lock()
        for app in apps { app.syncPresentation() }
    }

    public func unlock() throws(DeviceError) {
        try device.unlock()
        for app in apps { app.syncPresentation() }
    }
}
