import HTTPClient
import HTTPCore
public import WorldVocabulary

/// The model of `ASWebAuthenticationSession`: a browser sheet that loads an authorization URL,
/// lets a (scripted) user sign in and consent, and closes when the server redirects to the
/// app's callback (RFC 8252 §7), handing that URL back.
///
/// A shared session (`prefersEphemeralWebBrowserSession == false`) uses the system browser's
/// cookie jar, so a second sign-in needs no password (SSO), and an issuer cookie survives the
/// app's own sign-out (field bug 14); an ephemeral one uses a fresh jar thrown away at the end.
public struct WebAuthenticationSession: Sendable {
    /// What the sheet is for, which decides what the person does on a page.
    public enum Purpose: String, Sendable, Hashable {
        /// An authorization request: the person logs in and answers consent.
        case signIn
        /// An end-session request (OpenID Connect RP-Initiated Logout 1.0 §2): the person
        /// confirms the sign-out if asked, and closes the sheet on any other page (the issuer's
        /// "signed out" page, when no post-logout redirect brings the sheet back to the app).
        case signOut
    }

    /// Bounds that keep a broken or hostile server from holding the browser.
    public struct Limits: Hashable, Sendable {
        /// Most redirects followed in a row before `redirectLoop`.
        public var maximumRedirects: Int
        /// Largest page accepted before `pageTooLarge`.
        public var maximumPageSize: Int
        /// Most forms the user submits in one session before `unexpectedPage`.
        public var maximumFormSubmissions: Int

        public init(
            maximumRedirects: Int = 20, maximumPageSize: Int = HTMLDocument.defaultMaximumSize,
            maximumFormSubmissions: Int = 10
        ) {
            self.maximumRedirects = maximumRedirects
            self.maximumPageSize = maximumPageSize
            self.maximumFormSubmissions = maximumFormSubmissions
        }
    }

    /// The URL loaded first: the authorization request.
    public var url: String
    public var callback: WebAuthenticationCallback
    public var prefersEphemeralWebBrowserSession: Bool
    /// The engine the sheet runs in.
    public var browser: any WebSheetEngine
    public var limits: Limits
    public var purpose: Purpose

    public init(
        url: String, callback: WebAuthenticationCallback, browser: any WebSheetEngine,
        prefersEphemeralWebBrowserSession: Bool = false, limits: Limits = Limits(), purpose: Purpose = .signIn
    ) {
        self.url = url
        self.callback = callback
        self.browser = browser
        self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
        self.limits = limits
        self.purpose = purpose
    }

    /// The default deadline of a pending session on the real clock.
    public static let defaultDeadline = WebSessionDeadline.after(.seconds(300))

    /// Presents the sheet and starts loading (`ASWebAuthenticationSession.start()`).
    ///
    /// - Parameters:
    ///   - user: what the simulated person does in the sheet.
    ///   - context: the app's scene; it must be foreground-active and present no other session.
    ///   - deadline: when a session that is still pending fails with `timeout`; `nil` never.
    /// - Throws: `presentationContextInvalid` or `alreadyPresenting`, before anything is loaded.
    public func start(
        as user: WebUserScript, in context: WebPresentationContext,
        deadline: WebSessionDeadline? = defaultDeadline
    ) throws(WebAuthenticationError) -> WebAuthenticationHandle {
        let handle = WebAuthenticationHandle(context: context)
        try context.present(ObjectIdentifier(handle))
        let session = self
        // The deadline is armed first, then the navigation starts at once on this thread
        // (SE-0472) and runs up to its first suspension: the first request is on its way
        // before `start` returns. A navigation that ends before then has finished the handle.
        if let deadline {
            handle.whenFinished(
                deadline.arm {
                    handle.finish(
                        .failure(
                            WebAuthenticationError(
                                .timeout, "the session was still pending when its deadline passed")))
                })
        }
        let navigating = Task.immediate(executorPreference: InheritedExecutor.current) {
            if let result = await session.browser.navigate(session, as: user, handle: handle) {
                handle.finish(result)
            }
        }
        handle.whenFinished { navigating.cancel() }
        return handle
    }

    /// Starts the session and waits for its outcome; a refused start is the outcome's error.
    public func run(
        as user: WebUserScript, in context: WebPresentationContext,
        deadline: WebSessionDeadline? = defaultDeadline
    ) async -> WebAuthenticationOutcome {
        do {
            return try await start(as: user, in: context, deadline: deadline).outcome()
        } catch {
            return WebAuthenticationOutcome(result: .failure(error), trace: [])
        }
    }
}
