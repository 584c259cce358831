import Clocks
public import Device
import Foundation
public import HTTPCore
public import Locking
public import SignInSDK
public import WebAuthSession
public import WorldVocabulary

/// An app on a simulated device, with the sign-in SDK inside.
///
/// The SDK instance lives as long as the app's process: a cold launch makes a new one (and
/// configures it, as an app does in `application(_:didFinishLaunchingWithOptions:)`), and a
/// terminate drops it with everything in memory, abandoning the requests in flight (the
/// issuer may still have processed them). The keychain and the app's preferences are the
/// device's and outlive the process.
public final class SimulatedApp: Sendable {
    public let bundleID: String
    public let configuration: AppConfiguration
    /// The phone the app is installed on.
    public unowned let phone: SimulatedPhone
    /// The app's window scene, foreground-active or not, presenting a sheet or not.
    let scene = WebPresentationContext(isForegroundActive: false)
    private let runtime = Mutex(Runtime())

    struct Runtime {
        var client: SignInClient?
        var webUser = WebUserScript()
        var appleCancels = false
        var activeSession: WebAuthenticationHandle?
        var lastTrace: [WebPageVisit] = []
        var lastSheetResult: Result<String, WebAuthenticationError>?
        /// Every sheet this app presented, with its engine, in order.
        var sheets: [(engine: BrowserEngine, trace: [WebPageVisit])] = []
        var lastSignInStore: WebSheetStore?
        var loginFormsSubmitted = 0
        var operations: [UInt64: Task<Void, Never>] = [:]
        var nextOperation: UInt64 = 0
        var configureError: SignInError?
        var presentationWaits = 0
        /// The process's observers of Apple's `credentialRevokedNotification`.
        var appleRevocationObservers: [@Sendable () async -> Void] = []
    }

    init(configuration: AppConfiguration, phone: SimulatedPhone) {
        bundleID = configuration.bundleID
        self.configuration = configuration
        self.phone = phone
    }

    public var device: SimulatedDevice { phone.device }
    public var state: AppState { device.app(bundleID) }

    /// What the person does in the next web sheets.
    public var webUser: WebUserScript {
        get { runtime.withLock { $0.webUser } }
        set { runtime.withLock { $0.webUser = newValue } }
    }

    /// Whether the person cancels the Apple sheet.
    public var cancelsAppleSheet: Bool {
        get { runtime.withLock { $0.appleCancels } }
        set { runtime.withLock { $0.appleCancels = newValue } }
    }

    /// Whether a web sheet of this app is up.
    public var isPresentingSheet: Bool { scene.isPresenting }
    /// Notified whenever the scene's activation or its sheet changes.
    public var sheetChanges: ChangeSignal { scene.changes }

    /// How many sign-ins found no foreground-active scene and waited for one.
    public var presentationWaits: Int { runtime.withLock { $0.presentationWaits } }

    func notePresentationWait() { runtime.withLock { $0.presentationWaits += 1 } }

    /// The pages the last web sheet visited.
    public var lastWebTrace: [WebPageVisit] { runtime.withLock { $0.lastTrace } }

    /// The store of the app's last web sign-in sheet, as the SDK asked for it; `nil` before one.
    public var lastSignInStore: WebSheetStore? { runtime.withLock { $0.lastSignInStore } }

    /// How many sheets the app has presented (a mark for ``sheets(since:)``).
    public var sheetCount: Int { runtime.withLock { $0.sheets.count } }

    /// The sheets presented after the first `mark`, with their engines.
    public func sheets(since mark: Int) -> [(engine: BrowserEngine, trace: [WebPageVisit])] {
        runtime.withLock { Array($0.sheets.dropFirst(mark)) }
    }

    /// How the last web sheet ended: the callback URL, or the error; nil before any sheet.
    public var lastSheetResult: Result<String, WebAuthenticationError>? {
        runtime.withLock { $0.lastSheetResult }
    }

    /// How many login forms the person has submitted in this app's web sheets since the app was
    /// installed on this phone, retries after a refused password included: how often the issuer
    /// asked for the password, whatever path its form posts to.
    public var loginFormsSubmitted: Int { runtime.withLock { $0.loginFormsSubmitted } }

    /// Why the last launch's `configure(options:)` failed (discovery offline, …), if it did.
    public var configureError: SignInError? { runtime.withLock { $0.configureError } }

    // MARK: - Lifecycle

    /// Launches the app: a new process with a new SDK, configured as the app does at start.
    ///
    /// A configure that fails (the issuer unreachable) leaves the SDK configured but without
    /// discovery, which it fetches again on its next call; the error is kept in `configureError`.
    public func launch(_ kind: LaunchKind = .userTap) async throws(DeviceError) {
        _ = try device.launch(bundleID, kind)
        if kind == .userTap { _ = try? device.foreground(bundleID) }
        syncPresentation()
        let client = SignInClient(environment: makeEnvironment())
        runtime.withLock {
            $0.client = client
            $0.configureError = nil
        }
        let options = configuration.options
        let configured = await RequestInitiator.$current.withValue(initiator) {
            () async -> Result<Void, SignInError> in
            do throws(SignInError) {
                return .success(try await client.configure(options: options))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = configured {
            runtime.withLock { $0.configureError = error }
        }
    }

    public func foreground() throws(DeviceError) {
        _ = try device.foreground(bundleID)
        syncPresentation()
    }

    public func resignActive() throws(DeviceError) {
        _ = try device.resignActive(bundleID)
        syncPresentation()
    }

    public func background() throws(DeviceError) {
        _ = try device.background(bundleID)
        syncPresentation()
    }

    /// Kills the process: the SDK and its memory are gone, operations in flight are cancelled.
    public func terminate() throws(DeviceError) {
        _ = try device.terminate(bundleID)
        dropProcess()
        syncPresentation()
    }

    /// Deletes the app: its preferences go, its keychain items stay (field bug 16).
    public func uninstall() throws(DeviceError) {
        if state.phase.isRunning { dropProcess() }
        _ = try device.uninstall(bundleID)
        syncPresentation()
    }

    /// Deletes the app and installs it again (not launched).
    public func reinstall() throws(DeviceError) {
        if state.phase.isRunning { dropProcess() }
        _ = try device.reinstall(bundleID)
        syncPresentation()
    }

    /// Forgets the process: SDK instance, sheet, and every operation in flight.
    func dropProcess() {
        let (operations, session) = runtime.withLock { runtime in
            defer {
                runtime.client = nil
                runtime.operations = [:]
                runtime.activeSession = nil
                runtime.appleRevocationObservers = []
            }
            return (Array(runtime.operations.values), runtime.activeSession)
        }
        // Calls first: a call whose sheet closes must already count as abandoned by the kill,
        // or it could finish as the user's cancel (`canceled_login`) before it is cancelled.
        for operation in operations { operation.cancel() }
        session?.cancel()
    }

    /// The scene is foreground-active exactly when the app is.
    func syncPresentation() {
        scene.isForegroundActive = state.phase == .foregroundActive
    }

    // MARK: - The SDK

    /// The running app's SDK.
    public func client() throws(SimulatorError) -> SignInClient {
        guard let client = runtime.withLock({ $0.client }) else {
            throw SimulatorError("\(bundleID) is not running (phase \(state.phase.rawValue))")
        }
        return client
    }

    /// Runs an SDK call as the app's code would, so that a terminate abandons it: the call is
    /// cancelled and reports `transport` ("the app was terminated").
    @discardableResult
    public func perform<T: Sendable>(_ body: @escaping @Sendable (SignInClient) async throws -> T)
        async throws(SignInError) -> T
    {
        let client: SignInClient
        do {
            client = try self.client()
        } catch {
            throw SignInError(.invalidConfiguration, error.message)
        }
        let box = Mutex<Result<T, SignInError>?>(nil)
        // Started at once on this thread (SE-0472): the call runs up to its first suspension
        // before this returns, with no round through the executor's queue first.
        let initiator = self.initiator
        let task = Task.immediate(executorPreference: InheritedExecutor.current) {
            do {
                let value = try await RequestInitiator.$current.withValue(initiator) {
                    try await body(client)
                }
                box.withLock { $0 = .success(value) }
            } catch let error as SignInError {
                box.withLock { $0 = .failure(error) }
            } catch {
                box.withLock { $0 = .failure(SignInError(.transport, "\(error)")) }
            }
        }
        let id = runtime.withLock { runtime -> UInt64? in
            guard runtime.client === client else { return nil }
            runtime.nextOperation += 1
            runtime.operations[runtime.nextOperation] = task
            return runtime.nextOperation
        }
        // The process was dropped before the call was registered (while it ran up to its first
        // suspension, or just after): abandon it as the terminate would have.
        if id == nil { task.cancel() }
        await task.value
        if let id { runtime.withLock { _ = $0.operations.removeValue(forKey: id) } }
        guard let result = box.withLock({ $0 }) else {
            throw SignInError(.transport, "the app was terminated before the call finished")
        }
        if case .failure(let error) = result, task.isCancelled {
            throw SignInError(.transport, "the app was terminated before the call finished: \(error.message)")
        }
        return try result.get()
    }

    /// Registers an observer of Apple's revocation notification for the running process.
    func observeAppleRevocation(_ handler: @escaping @Sendable () async -> Void) {
        runtime.withLock { runtime in
            guard runtime.client != nil else { return }
            runtime.appleRevocationObservers.append(handler)
        }
    }

    /// Runs the process's observers of the revocation notification, as the app's code (a
    /// terminate abandons them).
    ///
    /// - Returns: whether a running process observed it.
    func deliverAppleCredentialRevoked() async -> Bool {
        let observers = runtime.withLock { $0.appleRevocationObservers }
        guard !observers.isEmpty else { return false }
        for observer in observers {
            try? await perform { _ in await observer() }
        }
        return true
    }

    /// Whether the app's credentials are in the keychain, read without the app running (nil
    /// when the keychain refuses, as before the first unlock).
    public func hasStoredCredentials() -> Bool? {
        do {
            return try storage.load(key: SignInClient.credentialsKey) != nil
        } catch {
            return nil
        }
    }

    /// The app's keychain items as its SDK stores them: the one view of them that the SDK's
    /// environment, the credentials check and the sign-out record share.
    var storage: KeychainTokenStorage {
        KeychainTokenStorage(
            keychain: device.keychain, accessGroup: configuration.accessGroup,
            accessibility: configuration.keychainAccessibility)
    }

    /// Who the app's own requests come from, for the device's network log.
    var initiator: RequestInitiator { RequestInitiator(agent: .app, app: bundleID) }

    private func makeEnvironment() -> SignInEnvironment {
        SignInEnvironment(
            transport: device.network,
            storage: storage,
            preferences: DeviceAppPreferences(device: device, bundleID: bundleID),
            clock: device.clock, random: device.random,
            webAuthentication: DeviceWebAuthenticationAgent(app: self),
            appleAuthorization: AppleAuthorizationForwarder(app: self),
            taskStarter: InheritedExecutorTaskStarter())
    }

    // MARK: - The sheet

    func presentSheet(_ request: WebAuthenticationRequest) async throws(WebAuthenticationFailure) -> String {
        guard let callback = WebAuthenticationCallback(redirectURI: request.redirectURI) else {
            throw WebAuthenticationFailure(
                .failed, "the redirect URI \(request.redirectURI) cannot be a callback")
        }
        let engine: any WebSheetEngine
        do {
            engine = try phone.sheetEngine(configuration.browser)
        } catch {
            throw Self.failure(error)
        }
        let session = WebAuthenticationSession(
            url: request.url, callback: callback, browser: engine,
            prefersEphemeralWebBrowserSession: request.prefersEphemeralSession,
            purpose: request.purpose == .signOut ? .signOut : .signIn)
        let scheduler = device.scheduler
        // A sheet left pending times out after five minutes of the world's time: a timer on the
        // world's clock, removed when the sheet closes first.
        let deadline = WebSessionDeadline(arm: { fire in
            let timer = scheduler.schedule(after: .seconds(300), fire)
            return { _ = timer.cancel() }
        })
        let handle: WebAuthenticationHandle
        do {
            handle = try session.start(as: webUser, in: scene, deadline: deadline)
        } catch {
            throw Self.failure(error)
        }
        runtime.withLock {
            $0.activeSession = handle
            if request.purpose == .signIn {
                $0.lastSignInStore = request.prefersEphemeralSession ? .ephemeral : .shared
            }
        }
        let outcome = await handle.outcome()
        runtime.withLock {
            if $0.activeSession === handle { $0.activeSession = nil }
            $0.lastTrace = outcome.trace
            $0.lastSheetResult = outcome.result
            $0.sheets.append((engine.engine, outcome.trace))
            $0.loginFormsSubmitted += outcome.trace.count { visit in
                if case .submittedLogin = visit.action { true } else { false }
            }
        }
        do {
            return try outcome.callbackURL()
        } catch {
            throw Self.failure(error)
        }
    }

    func cancelSheet() {
        runtime.withLock { $0.activeSession }?.cancel()
    }

    static func failure(_ error: WebAuthenticationError) -> WebAuthenticationFailure {
        switch error.code {
        case .canceledLogin: WebAuthenticationFailure(.canceledLogin, error.message)
        case .presentationContextInvalid: WebAuthenticationFailure(.presentationContextInvalid, error.message)
        case .alreadyPresenting: WebAuthenticationFailure(.alreadyPresenting, error.message)
        default: WebAuthenticationFailure(.failed, error.description)
        }
    }
}

/// The SDK's user agent on a simulated device: the app's scene and the device's browser.
struct DeviceWebAuthenticationAgent: WebAuthenticationUserAgent {
    unowned let app: SimulatedApp

    func canPresent() -> Bool { app.scene.isForegroundActive }

    /// Waits (in real time, at most `presentationPatience`) for the scene to become
    /// foreground-active: a scenario foregrounds the app in a later step while this call is
    /// pending. Woken by the scene's changes, not by polling.
    func waitUntilPresentable() async -> Bool {
        app.notePresentationWait()
        let scene = app.scene
        return await scene.changes.wait(
            until: { scene.isForegroundActive }, deadline: .now + Self.presentationPatience)
    }

    /// How long a sign-in waits for its scene to become foreground-active.
    static let presentationPatience: Duration = .seconds(5)

    func authenticate(_ request: WebAuthenticationRequest) async throws(WebAuthenticationFailure) -> String {
        try await app.presentSheet(request)
    }

    func cancelActiveSession() { app.cancelSheet() }
}

/// The SDK's Apple port on a simulated device: the device's Apple ID, looked up at each call,
/// the device's answer to credential-state questions, and the notifications the device posts
/// to the app's process.
struct AppleAuthorizationForwarder: AppleAuthorizationProvider {
    unowned let app: SimulatedApp

    func authorize(scopes: [AppleAuthorizationScope], nonce: String?) async throws(AppleAuthorizationFailure)
        -> AppleAuthorization
    {
        guard
            let authorizer = app.phone.appleAuthorizer(bundleID: app.bundleID, cancels: app.cancelsAppleSheet)
        else { throw AppleAuthorizationFailure(.failed, "no Apple ID is signed in on this device") }
        return try await authorizer.authorize(scopes: scopes, nonce: nonce)
    }

    func credentialState(forUserID userID: String) async throws(AppleAuthorizationFailure)
        -> AppleIDCredentialState
    {
        guard let check = app.phone.appleCredentialCheck(bundleID: app.bundleID) else {
            throw AppleAuthorizationFailure(.failed, "this device has no Apple to ask")
        }
        return try await check.state(forUserID: userID)
    }

    func observeCredentialRevocation(_ handler: @escaping @Sendable () async -> Void) {
        app.observeAppleRevocation(handler)
    }
}
