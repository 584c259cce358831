import HTTPCore
import OAuthCore
public import SignInSDK
public import WebAuthSession
public import WorldVocabulary

/// Where an app's web sign-in sheets kept the issuer's cookies.
public enum WebSheetStore: String, Sendable, Hashable {
    /// The phone's browser store, which every shared sheet of every app sees.
    case shared
    /// A store of the sheet's own, gone when it closed (`prefersEphemeralWebBrowserSession`).
    case ephemeral
}

/// An app's sign-out as the simulator saw it: what came back to the app, and what a later
/// check needs to find out whether the issuer's session really ended.
public struct SignOutRecord: Sendable {
    /// What came back to the app (the SDK's view).
    public var outcome: SignOutOutcome
    /// The store of the app's last web sign-in sheet; `nil` when it signed in without one.
    public var signInStore: WebSheetStore?
    /// The app's stored items just before the sign-out (its credentials and DPoP key), for the
    /// refresh-token check.
    var storedItems: [String: [UInt8]]
    /// The ID token the app held before the sign-out: the `id_token_hint` of the prompt=none
    /// check (OpenID Connect Core §3.1.2.1: it SHOULD be sent with `prompt=none`).
    var idToken: String?
}

/// Whether a sign-out ended the issuer's session, as the simulator proved it afterwards.
///
/// An app learns only what the issuer sends back: a post-logout redirect with the `state`
/// (OpenID Connect RP-Initiated Logout 1.0 §3) is the issuer's acknowledgement, which an issuer
/// that ended nothing sends all the same. The proof is asked of the issuer itself, after the
/// fact and without changing what later steps see:
///
/// 1. in the browser store where the app's sign-ins kept the issuer's cookies (the shared one;
///    an ephemeral sheet's store went with it), an authorization request with `prompt=none`
///    and the app's last ID token as `id_token_hint` (OpenID Connect Core §3.1.2.1):
///    `login_required`, or the login form, means no session; a code (left unredeemed),
///    `consent_required` or a consent page means the session goes on;
/// 2. when the issuer's answer to that says neither (Glewlwyd answers `interaction_required`,
///    django-oauth-toolkit a 500), the same request without `prompt`: the login form means no
///    session, a code without asking means the session goes on;
/// 3. when the store cannot tell, the refresh token the app held before the sign-out: refused
///    (`invalid_grant`, RFC 6749 §5.2) means the issuer ended the grant; accepted means it
///    kept it (RP-Initiated Logout does not require revoking it, and `offline_access` exists
///    to outlive the session: Core §11), and the new tokens are dropped unseen.
public struct SignOutCheck: Sendable, Hashable {
    /// The two authorization requests a check sends in the browser store.
    public enum StoreRequest: String, Sendable, Hashable {
        /// With `prompt=none` and `id_token_hint`: the issuer must answer without a page.
        case promptNone = "an authorization request with prompt=none"
        /// Without `prompt`: the issuer shows its login form unless the person is signed in.
        case plain = "an authorization request without prompt"
    }

    /// What one check saw.
    public enum Observation: Sendable, Hashable {
        /// The `prompt=none` request in the store was answered with this error: no session.
        case noSessionInStore(error: String)
        /// The issuer showed its login form to a request in the store: no session.
        case loginFormShown(StoreRequest)
        /// A request in the store found the person still signed in, as this says.
        case sessionInStore(StoreRequest, String)
        /// The refresh token from before the sign-out was refused with this error.
        case refreshRefused(error: String)
        /// The refresh token from before the sign-out still refreshed.
        case refreshAccepted
        /// A check that could not run or could not tell, and why.
        case notChecked(String)

        /// Whether it proves that the issuer's session (or grant) ended.
        var provesEnded: Bool {
            switch self {
            case .noSessionInStore, .loginFormShown, .refreshRefused: true
            case .sessionInStore, .refreshAccepted, .notChecked: false
            }
        }

        /// Whether it proves that the issuer's session goes on.
        var provesSession: Bool {
            if case .sessionInStore = self { true } else { false }
        }

        /// Whether it settles the question either way.
        var isConclusive: Bool { provesEnded || provesSession }

        /// What was seen, in words.
        public var description: String {
            let store = "in the browser store of the app's sign-ins"
            switch self {
            case .noSessionInStore(let error):
                return "\(StoreRequest.promptNone.rawValue) \(store) was answered \(error)"
            case .loginFormShown(let request):
                return "\(request.rawValue) \(store) was shown the login form"
            case .sessionInStore(let request, let what):
                return "\(request.rawValue) \(store) \(what)"
            case .refreshRefused(let error):
                return "the refresh token the app held before the sign-out was refused (\(error))"
            case .refreshAccepted:
                return
                    "the refresh token the app held before the sign-out still refreshed: the issuer kept the grant"
            case .notChecked(let why):
                return why
            }
        }
    }

    /// The closed set of what a report can say of a sign-out.
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// Proved: a check found the session (or the grant) gone.
        case verified
        /// The issuer answered as if it signed the person out, yet a check found its session
        /// still there.
        case notEnded = "not_ended"
        /// The issuer redirected back with the `state`; no check could prove either way.
        case acknowledged
        /// No answer came back (no post-logout redirect URI) and no check could prove either way.
        case unconfirmed
        /// The end-session request failed: an error, the network, a foreign `state`.
        case failed
        /// No end-session request was sent: the app signed out locally.
        case local
    }

    public var verdict: Verdict
    /// What came back to the app.
    public var outcome: SignOutOutcome
    /// What the checks saw, in the order they ran.
    public var observations: [Observation]
    /// The requests the checks sent (never the app's, never in its HAR).
    public var requests: Int

    public init(outcome: SignOutOutcome, observations: [Observation], requests: Int) {
        self.outcome = outcome
        self.observations = observations
        self.requests = requests
        verdict = Self.verdict(outcome.endSession, observations)
    }

    /// The verdict the answer and the checks support; checks only ever run after an answer
    /// that claims a sign-out.
    static func verdict(_ endSession: SignOutOutcome.EndSession, _ observations: [Observation]) -> Verdict {
        switch endSession {
        case .notRequested: return .local
        case .failed: return .failed
        case .acknowledged, .unconfirmed: break
        }
        if observations.contains(where: \.provesSession) { return .notEnded }
        if observations.contains(where: \.provesEnded) { return .verified }
        return endSession == .acknowledged ? .acknowledged : .unconfirmed
    }

    /// Whether the issuer's session is proved ended: the only case a report calls "signed out
    /// at the issuer".
    public var signedOutAtIssuer: Bool { verdict == .verified }

    /// The evidence, one sentence per thing seen: what came back to the app first, then each
    /// check.
    public var evidence: [String] {
        var lines: [String] = []
        switch outcome.endSession {
        case .notRequested: lines.append("no end-session request was sent")
        case .acknowledged:
            lines.append("the post-logout redirect came back to the app with the state it sent")
        case .unconfirmed(let why): lines.append("nothing came back to the app: \(why)")
        case .failed(let why): lines.append("the end-session request failed: \(why)")
        }
        return lines + observations.map(\.description)
    }

    /// The sign-out in one line, as reports state it.
    public var statement: String {
        let proof = observations.filter { verdict == .verified ? $0.provesEnded : true }.map(\.description)
        let checks = requests == 1 ? "1 request" : "\(requests) requests"
        switch verdict {
        case .verified:
            return
                "ended at the issuer (verified: \(proof.joined(separator: "; ")); the check sent \(checks))"
        case .notEnded:
            let answer =
                outcome.endSession == .acknowledged
                ? "acknowledged" : "unconfirmed (nothing came back to the app)"
            return
                "not ended at the issuer: the sign-out was \(answer), but \(proof.joined(separator: "; ")) "
                + "(the check sent \(checks))"
        case .acknowledged:
            return
                "acknowledged by the issuer (the post-logout redirect came back with the state), not verified: "
                + "\(proof.joined(separator: "; "))"
        case .unconfirmed:
            guard case .unconfirmed(let why) = outcome.endSession else { return "unconfirmed" }
            return "unconfirmed (\(why)), not verified: \(proof.joined(separator: "; "))"
        case .failed:
            guard case .failed(let why) = outcome.endSession else { return "failed" }
            return "failed: \(why)"
        case .local:
            return "signed out locally; the issuer was not asked"
        }
    }
}

extension SimulatedApp {
    /// Signs the app out through its SDK, keeping what ``checkSignOut(_:)`` needs afterwards.
    public func signOut(callEndSession: Bool) async throws(SignInError) -> SignOutRecord {
        var items: [String: [UInt8]] = [:]
        for key in [SignInClient.credentialsKey, SignInClient.dpopKeyKey] {
            // A keychain that cannot be read now leaves nothing to check with, which the check
            // then says.
            if let value = try? storage.load(key: key) { items[key] = value }
        }
        let idToken = try? await client().storedSession()?.idToken
        let outcome = try await perform { try await $0.signOut(callEndSession: callEndSession) }
        return SignOutRecord(
            outcome: outcome, signInStore: lastSignInStore, storedItems: items, idToken: idToken ?? nil)
    }

    /// Proves whether the sign-out of `record` ended the issuer's session (``SignOutCheck``).
    /// Its requests are marked as a check's: they meet no network fault and stay out of the
    /// app's log.
    public func checkSignOut(_ record: SignOutRecord) async -> SignOutCheck {
        switch record.outcome.endSession {
        case .notRequested, .failed:
            return SignOutCheck(outcome: record.outcome, observations: [], requests: 0)
        case .acknowledged, .unconfirmed: break
        }
        let sentBefore = device.network.checkLog.count
        let check = RequestInitiator(agent: .app, app: bundleID, isCheck: true)
        var observations: [SignOutCheck.Observation] = []
        await RequestInitiator.$current.withValue(check) {
            observations.append(await browserCheck(record, .promptNone))
            if record.signInStore == .shared, !observations.contains(where: \.isConclusive) {
                observations.append(await browserCheck(record, .plain))
            }
            if !observations.contains(where: \.isConclusive) {
                observations.append(await refreshCheck(record))
            }
        }
        return SignOutCheck(
            outcome: record.outcome, observations: observations,
            requests: device.network.checkLog.count - sentBefore)
    }

    /// An authorization request in the store the app's sign-ins used.
    private func browserCheck(_ record: SignOutRecord, _ request: SignOutCheck.StoreRequest) async
        -> SignOutCheck.Observation
    {
        switch record.signInStore {
        case nil:
            return .notChecked(
                "the app signed in without a web sheet, so no browser store holds a session of it")
        case .ephemeral:
            return .notChecked(
                "the app's sign-in sheets were ephemeral: their cookies went with them, so no browser store on "
                    + "the phone can show whether the issuer's session ended")
        case .shared: break
        }
        let url: String
        do {
            let client = try client()
            var options = SignInRequestOptions(scopes: ["openid"])
            switch request {
            case .promptNone:
                options.prompt = .values(["none"])
                if let hint = record.idToken {
                    options.additionalParameters[OAuthParameter.idTokenHint] = hint
                }
            case .plain:
                options.prompt = .omitted
            }
            url = try await client.unredeemedAuthorizationURL(options)
        } catch {
            return .notChecked("no authorization request could be built to check the browser store: \(error)")
        }
        let outcome: WebAuthenticationOutcome
        do {
            outcome = try await phone.openSheet(
                url: url, redirectURI: configuration.options.redirectURI, engine: configuration.browser,
                ephemeral: false, person: SignOutCheck.checkingPerson)
        } catch {
            return .notChecked("the check's sheet could not open: \(error.message)")
        }
        return SignOutCheck.observation(of: outcome, request: request)
    }

    /// The refresh token the app held before the sign-out, sent by a client of its own whose
    /// new tokens, if any, are dropped.
    private func refreshCheck(_ record: SignOutRecord) async -> SignOutCheck.Observation {
        guard record.storedItems[SignInClient.credentialsKey] != nil else {
            return .notChecked(
                "the app held no stored session before the sign-out, so no refresh token to try")
        }
        let storage = InMemoryTokenStorage()
        for (key, value) in record.storedItems { try? storage.save(key: key, value: value) }
        // Installed, as far as the check's client knows: a fresh install would clear the items.
        let preferences = InMemoryAppPreferences()
        preferences.set("1", forKey: SignInClient.installationMarker)
        let client = SignInClient(
            environment: SignInEnvironment(
                transport: device.network, storage: storage, preferences: preferences, clock: device.clock,
                random: device.random))
        var options = configuration.options
        // The check sends the token as a correct client would, whatever faults the app has.
        options.profile = BehaviorProfile()
        do {
            try await client.configure(options: options)
            guard try await client.storedSession()?.refreshToken != nil else {
                return .notChecked("the app held no refresh token before the sign-out")
            }
            _ = try await client.getAccessToken(forceRefresh: true)
            return .refreshAccepted
        } catch  where error.code == .sessionExpired {
            return .refreshRefused(error: error.oauthError ?? "invalid_grant")
        } catch {
            return .notChecked(
                "the refresh token could not be tried: \(error.code.rawValue): \(error.message)")
        }
    }
}

extension SignOutCheck {
    /// The person of a check's sheet: types nothing, cancels at a login form, refuses consent.
    public static let checkingPerson = WebUserScript(consent: .deny, interruption: .cancel(at: .login))

    /// What the end of a check's sheet (`checkingPerson` in the store of the app's sign-ins)
    /// says of the issuer's session.
    public static func observation(of outcome: WebAuthenticationOutcome, request: StoreRequest) -> Observation
    {
        let consentShown = outcome.trace.contains {
            if case .deniedConsent = $0.action { true } else { false }
        }
        let signedIn = "the person is still signed in"
        switch outcome.result {
        case .success(let url):
            let query = (try? URLParts.queryParameters(of: url)) ?? FormParameters()
            if consentShown { return .sessionInStore(request, "was shown the consent page: \(signedIn)") }
            if query[OAuthParameter.code] != nil {
                return .sessionInStore(request, "came back with a code (left unredeemed): \(signedIn)")
            }
            switch (request, query[OAuthParameter.error]) {
            case (.promptNone, "login_required"?):
                return .noSessionInStore(error: "login_required")
            case (.promptNone, let error?)
            where ["consent_required", "account_selection_required"].contains(error):
                return .sessionInStore(request, "was answered \(error): \(signedIn)")
            case (_, let error?):
                return .notChecked(
                    "\(request.rawValue) was answered \(error), which does not say whether the issuer's session ended"
                )
            case (_, nil):
                return .notChecked("\(request.rawValue) came back with neither a code nor an error")
            }
        case .failure(let error):
            if error.code == .canceledLogin, outcome.trace.last?.action == .canceled {
                return .loginFormShown(request)
            }
            // The checking person refuses consent, so a sheet that reached the callback with a
            // code and never asked is stopped as a consent not shown: the code came all the same.
            if error.code == .consentNotShown {
                return .sessionInStore(request, "came back with a code (left unredeemed): \(signedIn)")
            }
            return .notChecked("\(request.rawValue) ended in \(error.code.rawValue): \(error.message)")
        }
    }
}
