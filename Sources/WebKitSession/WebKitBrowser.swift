import Foundation
public import HTTPClient
public import HTTPCore
import Locking
public import WebAuthSession
import WebKitHelperProtocol
public import WorldVocabulary

/// One phone's system browser in the `webkit` engine: a persistent store shared by every
/// non-ephemeral sheet of every app on the phone (SSO between apps; it outlives app kills and
/// relaunches, as Safari's cookies do), a fresh ephemeral store per ephemeral sheet
/// (`prefersEphemeralWebBrowserSession`), and a proxy that sends their requests through the
/// phone's network.
public final class WebKitBrowser: WebSheetEngine {
    public let webKit: WebKitEngine
    /// How long the person waits for a page to offer what they came for, and for a press to
    /// change anything, before giving up.
    public let patience: Duration
    private let network: any HTTPTransport
    private let state = Mutex(State())

    private struct State {
        var proxy: SheetProxy?
        /// The shared store's directory, made on first use, deleted by ``close()``.
        var directory: String?
        /// The helper the shared store was opened in: after a crash it is opened again.
        var sharedStoreHelper: ObjectIdentifier?
        var nextSheet = 0
        var closed = false
    }

    /// What every sheet's `User-Agent` starts with: Mobile Safari on an iPhone, as the issuer
    /// sees `ASWebAuthenticationSession`'s sheet.
    public static let userAgent =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        + "Version/18.5 Mobile/15E148 Safari/604.1"
    /// The sheet's size in CSS pixels: an iPhone's screen in portrait.
    public static let viewport = (width: 390, height: 844)

    /// - Parameters:
    ///   - network: what the phone's sheets send through (its conditions and log).
    public init(webKit: WebKitEngine, network: any HTTPTransport, patience: Duration = .seconds(15)) {
        self.webKit = webKit
        self.network = network
        self.patience = patience
    }

    public var engine: BrowserEngine { .webkit }

    private let id = UInt64.random(in: 0...UInt64.max)

    /// A name unique to this phone and sheet.
    private func nextName(_ prefix: String) -> String {
        let number = state.withLock {
            $0.nextSheet += 1
            return $0.nextSheet
        }
        return "\(prefix)-\(String(id, radix: 36))-\(number)"
    }

    private var sharedStoreName: String { "shared-\(String(id, radix: 36))" }

    public func navigate(
        _ session: WebAuthenticationSession, as user: WebUserScript, handle: WebAuthenticationHandle
    ) async -> Result<String, WebAuthenticationError>? {
        let sheet = nextName("sheet")
        let store = session.prefersEphemeralWebBrowserSession ? nextName("ephemeral") : sharedStoreName
        let prepared: (WebKitHelperProcess, SheetProxy)
        do {
            prepared = try await prepare(store: store, ephemeral: session.prefersEphemeralWebBrowserSession)
        } catch {
            return .failure(
                WebAuthenticationError(
                    error.code == .notInstalled ? .browserUnavailable : .browserCrashed,
                    "the WebKit engine cannot show the sheet: \(error.message)", url: session.url))
        }
        let (helper, proxy) = prepared
        proxy.register(sheet: sheet, presentedBy: RequestInitiator.current)
        var navigation = WebKitNavigation(
            session: session,
            person: WebPerson(
                user: user, purpose: session.purpose,
                maximumSubmissions: session.limits.maximumFormSubmissions),
            sheet: sheet, helper: helper, proxy: proxy, handle: handle, patience: patience)
        let ephemeral = session.prefersEphemeralWebBrowserSession
        // The sheet stays up until the session ends (an abandoned one too); then it goes.
        handle.whenFinished {
            Task {
                helper.stopListening(to: sheet)
                _ = try? await helper.request(.closeSheet(sheet: sheet))
                if ephemeral { _ = try? await helper.request(.closeStore(store: store)) }
                proxy.unregister(sheet: sheet)
            }
        }
        do {
            _ = try await helper.request(
                .openSheet(
                    sheet: sheet, store: store, userAgent: Self.userAgent + SheetProxy.marker(for: sheet),
                    width: Self.viewport.width, height: Self.viewport.height))
        } catch {
            return .failure(
                WebAuthenticationError(
                    .browserCrashed, "the WebKit engine cannot open a sheet: \(error.message)"))
        }
        return await navigation.run()
    }

    /// The running helper with `store` open in it, and the proxy.
    private func prepare(store: String, ephemeral: Bool) async throws(WebKitEngineError) -> (
        WebKitHelperProcess, SheetProxy
    ) {
        let helper = try await webKit.helper()
        let proxy = try proxy()
        if ephemeral {
            _ = try await helper.request(
                .openStore(store: store, directory: nil, proxy: proxy.url, tunnel: proxy.tunnelURL))
            return (helper, proxy)
        }
        let needsOpening = state.withLock { $0.sharedStoreHelper != ObjectIdentifier(helper) }
        if needsOpening {
            let directory = try sharedDirectory()
            _ = try await helper.request(
                .openStore(store: store, directory: directory, proxy: proxy.url, tunnel: proxy.tunnelURL))
            state.withLock { $0.sharedStoreHelper = ObjectIdentifier(helper) }
        }
        return (helper, proxy)
    }

    private func proxy() throws(WebKitEngineError) -> SheetProxy {
        if let proxy = state.withLock({ $0.proxy }) { return proxy }
        let made = try SheetProxy(network: network)
        let (kept, extra): (SheetProxy, SheetProxy?) = state.withLock { state in
            if let proxy = state.proxy { return (proxy, made) }
            state.proxy = made
            return (made, nil)
        }
        if let extra { Task { await extra.shutdown() } }
        return kept
    }

    private func sharedDirectory() throws(WebKitEngineError) -> String {
        if let directory = state.withLock({ $0.directory }) { return directory }
        let directory = NSTemporaryDirectory() + "signinsim-webkit-store-\(String(id, radix: 36))"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw WebKitEngineError(
                .cannotStart, "cannot make the shared store's directory \(directory): \(error)")
        }
        state.withLock { $0.directory = directory }
        return directory
    }

    /// The shared store's cookies, as the engine keeps them.
    public func cookies() async -> [Cookie] {
        guard state.withLock({ $0.sharedStoreHelper != nil }), let helper = try? await webKit.helper(),
            state.withLock({ $0.sharedStoreHelper == ObjectIdentifier(helper) }),
            case .cookies(let cookies) = try? await helper.request(.cookies(store: sharedStoreName))
        else { return [] }
        return cookies.map { cookie in
            var domain = cookie.domain.lowercased()
            let subdomains = domain.hasPrefix(".")
            if subdomains { domain.removeFirst() }
            return Cookie(
                domain: domain, includeSubdomains: subdomains, path: cookie.path, secure: cookie.secure,
                httpOnly: cookie.httpOnly, expires: cookie.expires.map { Int64($0) } ?? 0, name: cookie.name,
                value: cookie.value)
        }
    }

    /// Closes the shared store and the proxy, and deletes the store's files: the phone is gone.
    public func close() async {
        let (proxy, directory, opened) = state.withLock { state in
            state.closed = true
            defer {
                state.proxy = nil
                state.directory = nil
                state.sharedStoreHelper = nil
            }
            return (state.proxy, state.directory, state.sharedStoreHelper)
        }
        if opened != nil, let helper = try? await webKit.helper(), ObjectIdentifier(helper) == opened {
            _ = try? await helper.request(.closeStore(store: sharedStoreName))
        }
        await proxy?.shutdown()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
