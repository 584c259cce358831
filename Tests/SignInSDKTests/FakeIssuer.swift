import Clocks
import Cryptography
import HTTPCore
import JOSE
import JSON
import Locking
import OAuthCore
import SignInSDK

/// A scripted OpenID provider for SDK unit tests: every answer is under the test's control.
///
/// Not the embedded issuer on purpose: these tests must be able to send exactly the wrong
/// thing (a bad `iss`, an `alg: none` token, a response without `refresh_token`) that a strict
/// issuer would never produce.
final class FakeIssuer: Sendable {
    struct Code: Sendable {
        var nonce: String?
        var challenge: String
        var redirectURI: String
    }

    struct State: Sendable {
        var codes: [String: Code] = [:]
        var refreshTokens: [String: Bool] = [:]  // token → still valid
        var counter = 0
        var requests: [String] = []
        /// The hash claims the next ID tokens carry, computed as they should be (ES256: SHA-256);
        /// `claimOverrides` replaces them.
        var hashClaims: Set<HashClaim> = []
        /// Replaces the claims of the next ID tokens.
        var claimOverrides: [String: JSONValue] = [:]
        var headerOverrides: [String: JSONValue] = [:]
        var advertisesIss = true
        var callbackIss: String?
        /// Refresh responses carry no `refresh_token`, and the presented one stays valid.
        var omitRefreshTokenOnRefresh = false
        var refreshFailure: HTTPResponse?
        var refreshDelay: Duration = .zero
        var expiresIn: Int64 = 3600
        var keys: [String] = ["k1"]
        var signingKeyID = "k1"
        var rotateReuseRevokesFamily = true
        var endSessionStatus = 200
        /// What the post-logout redirect carries as `state`: the request's (`.echo`), none, or
        /// another value.
        var logoutState: LogoutState = .echo
        /// Apple codes the fake Apple issued and not yet redeemed, with their nonce.
        var appleCodes: [String: String?] = [:]
        var exchanges: [FormParameters] = []
        var rejectAppleNonce = false
        /// The answer of the next exchange, instead of processing it.
        var failNextExchange: HTTPResponse?
        /// Names applied from `user_profile`, by Apple user.
        var profileNames: [String: String] = [:]
        /// Answer of the next exchange after processing it (for instance a lost response).
        var loseNextExchangeResponse = false
        /// `token_endpoint_auth_methods_supported` in discovery, when set.
        var authMethodsSupported: [String]?
        /// Every request to the token endpoint, as sent.
        var tokenRequests: [HTTPRequest] = []
        /// The answer of the next token request, instead of processing it.
        var failNextToken: HTTPResponse?
    }

    let issuer: String
    let clock: ManualWallClock
    let state = Mutex(State())
    let signingKeys: [String: P256PrivateKey]

    init(
        issuer: String = "https://issuer.test/", clock: ManualWallClock = ManualWallClock(now: 1_800_000_000)
    ) {
        self.issuer = issuer
        self.clock = clock
        let random = SeededRandom(seed: 7)
        signingKeys = [
            "k1": try! P256PrivateKey(random: random), "k2": try! P256PrivateKey(random: random),
        ]
    }

    var base: String { issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer }
    var requests: [String] { state.withLock { $0.requests } }
    func count(_ name: String) -> Int { requests.filter { $0 == name }.count }

    func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }

    /// The transport an SDK under test uses.
    var transport: ClosureTransport {
        ClosureTransport { [self] request throws(HTTPError) in try await respond(request) }
    }

    func respond(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let path = request.path
        switch path {
        case "/.well-known/openid-configuration":
            record("discovery")
            return .json(discovery())
        case "/jwks":
            record("jwks")
            let keys = state.withLock { $0.keys }
            return .json(
                .object([
                    "keys": .array(keys.map { JWK(signingKeys[$0]!.publicKey, keyID: $0).json })
                ]))
        case "/token":
            let failure = state.withLock { state in
                state.tokenRequests.append(request)
                defer { state.failNextToken = nil }
                return state.failNextToken
            }
            if let failure { return failure }
            return try await token(try request.formParameters())
        case "/logout":
            record("logout")
            let query = try request.queryParameters()
            let (status, logoutState) = state.withLock { ($0.endSessionStatus, $0.logoutState) }
            guard status < 400, let redirect = query["post_logout_redirect_uri"] else {
                return HTTPResponse(status: status)
            }
            var back = FormParameters()
            switch logoutState {
            case .echo: if let sent = query["state"] { back.append("state", sent) }
            case .none: break
            case .other(let value): back.append("state", value)
            }
            return HTTPResponse(
                status: 302, headers: ["Location": FormURLEncoding.appendingQuery(back, to: redirect)])
        default:
            return HTTPResponse(status: 404)
        }
    }

    func discovery() -> JSONValue {
        let (advertises, methods) = state.withLock { ($0.advertisesIss, $0.authMethodsSupported) }
        var document: [String: JSONValue] = [
            "issuer": .string(issuer), "authorization_endpoint": .string(base + "/authorize"),
            "token_endpoint": .string(base + "/token"), "jwks_uri": .string(base + "/jwks"),
            "end_session_endpoint": .string(base + "/logout"),
            "authorization_response_iss_parameter_supported": .bool(advertises),
        ]
        if let methods {
            document["token_endpoint_auth_methods_supported"] = .array(methods.map(JSONValue.string))
        }
        return .object(document)
    }

    private func record(_ name: String) { state.withLock { $0.requests.append(name) } }

    private func token(_ form: FormParameters) async throws(HTTPError) -> HTTPResponse {
        switch form["grant_type"] {
        case "authorization_code":
            record("token:authorization_code")
            let code = state.withLock { $0.codes.removeValue(forKey: form["code"] ?? "") }
            guard let code, PKCE.verify(verifier: form["code_verifier"] ?? "", matches: code.challenge),
                form["redirect_uri"] == code.redirectURI
            else { return .json(["error": "invalid_grant"], status: 400) }
            return .json(tokens(nonce: code.nonce, withRefreshToken: true, code: form["code"]))
        case "refresh_token":
            record("token:refresh_token")
            let (failure, delay, omit) = state.withLock {
                ($0.refreshFailure, $0.refreshDelay, $0.omitRefreshTokenOnRefresh)
            }
            if delay > .zero { try? await Task.sleep(for: delay) }
            if let failure { return failure }
            let presented = form["refresh_token"] ?? ""
            let valid = state.withLock { state -> Bool in
                // An issuer that does not rotate leaves the presented token valid.
                if omit, state.refreshTokens[presented] == true { return true }
                guard state.refreshTokens[presented] == true else {
                    // Reuse of a rotated token revokes the family (RFC 9700 §4.14.2).
                    if state.refreshTokens[presented] == false, state.rotateReuseRevokesFamily {
                        for key in state.refreshTokens.keys { state.refreshTokens[key] = false }
                    }
                    return false
                }
                state.refreshTokens[presented] = false
                return true
            }
            guard valid else { return .json(["error": "invalid_grant"], status: 400) }
            return .json(tokens(nonce: nil, withRefreshToken: !omit))
        case "urn:ietf:params:oauth:grant-type:token-exchange":
            record("token:token_exchange")
            let code = form["subject_token"] ?? ""
            let outcome = state.withLock { state -> HTTPResponse? in
                state.exchanges.append(form)
                guard let nonce = state.appleCodes.removeValue(forKey: code) else {
                    return .json(
                        ["error": "invalid_grant", "error_description": "Invalid authorization code"],
                        status: 403)
                }
                _ = nonce
                if let failure = state.failNextExchange {
                    state.failNextExchange = nil
                    return failure
                }
                if form["nonce"] != nil, state.rejectAppleNonce {
                    return .json(
                        ["error": "invalid_request", "error_description": "Error from Apple connection"],
                        status: 400)
                }
                if let profile = form["user_profile"] { state.profileNames["apple-user"] = profile }
                return nil
            }
            if let outcome { return outcome }
            let lose = state.withLock { state in
                defer { state.loseNextExchangeResponse = false }
                return state.loseNextExchangeResponse
            }
            if lose { throw HTTPError(.connectionLost, "the response was lost") }
            return .json(tokens(nonce: nil, withRefreshToken: true))
        default:
            return .json(["error": "unsupported_grant_type"], status: 400)
        }
    }

    /// Signs a token by hand so that tests can put any header on it: `alg: none` gets no
    /// signature, `HS256` an HMAC keyed with the public JWK (the algorithm confusion attack).
    func sign(claims: [String: JSONValue], header overrides: [String: JSONValue], keyID: String) -> String {
        var header: [String: JSONValue] = ["alg": "ES256", "kid": .string(keyID), "typ": "JWT"]
        for (name, value) in overrides { header[name] = value }
        let input =
            Base64URL.encode(JSONValue.object(header).serialized()) + "."
            + Base64URL.encode(JSONValue.object(claims).serialized())
        let key = signingKeys[keyID]!
        let signature: [UInt8] =
            switch header["alg"]?.stringValue {
            case "none": []
            case "HS256":
                HMACSHA256.authenticationCode(
                    for: Array(input.utf8), key: JWK(key.publicKey, keyID: keyID).json.serialized())
            default: try! key.signature(for: Array(input.utf8))
            }
        return input + "." + Base64URL.encode(signature)
    }

    /// Issues a code the way an authorize endpoint would, and returns the callback URL.
    func authorize(url: String) -> String {
        let query = (try? FormURLEncoding.decode(URLParts(url)?.query ?? "")) ?? FormParameters()
        let code = state.withLock { state -> String in
            state.counter += 1
            let code = "code-\(state.counter)"
            state.codes[code] = Code(
                nonce: query["nonce"], challenge: query["code_challenge"] ?? "",
                redirectURI: query["redirect_uri"] ?? "")
            return code
        }
        var parameters: FormParameters = ["code": code, "state": query["state"] ?? ""]
        if let iss = state.withLock({ $0.advertisesIss ? ($0.callbackIss ?? issuer) : $0.callbackIss }) {
            parameters.append("iss", iss)
        }
        return FormURLEncoding.appendingQuery(parameters, to: query["redirect_uri"] ?? "")
    }

    func tokens(nonce: String?, withRefreshToken: Bool, code: String? = nil) -> JSONValue {
        let now = clock.now()
        let (overrides, hashClaims, header, expiresIn, keyID, refreshToken) = state.withLock { state in
            state.counter += 1
            let refreshToken = withRefreshToken ? "rt-\(state.counter)" : nil
            if let refreshToken { state.refreshTokens[refreshToken] = true }
            return (
                state.claimOverrides, state.hashClaims, state.headerOverrides, state.expiresIn,
                state.signingKeyID, refreshToken
            )
        }
        let accessToken = "at-\(now)-\(refreshToken ?? "none")"
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": "user-1", "aud": "com.example.app", "iat": .int(now),
            "exp": .int(now + 3600), "name": "Alice",
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        for claim in hashClaims {
            guard let value = claim == .accessToken ? accessToken : code else { continue }
            claims[claim.rawValue] = .string(try! HashClaim.leftHalfHash(of: value, algorithm: "ES256"))
        }
        for (name, value) in overrides { claims[name] = value.isNull ? nil : value }
        let idToken = sign(claims: claims, header: header, keyID: keyID)
        var body: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": "Bearer",
            "expires_in": .int(expiresIn), "id_token": .string(idToken),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        return .object(body)
    }
}

/// Apple on the device: the name only on the first authorization of the app.
final class FakeApple: AppleAuthorizationProvider {
    let issuer: FakeIssuer
    let authorizations = Mutex(0)
    /// What `credentialState(forUserID:)` answers (a failure when nil), and the user ids asked.
    let credentialStates = Mutex<AppleIDCredentialState?>(.authorized)
    let askedUserIDs = Mutex<[String]>([])
    /// The observers of the revocation notification registered so far.
    let revocationObservers = Mutex<[@Sendable () async -> Void]>([])
    /// Runs while Apple is asked for a credential state, before it answers.
    let whileAsked = Mutex<(@Sendable () async -> Void)?>(nil)

    init(issuer: FakeIssuer) { self.issuer = issuer }

    func credentialState(forUserID userID: String) async throws(AppleAuthorizationFailure)
        -> AppleIDCredentialState
    {
        askedUserIDs.withLock { $0.append(userID) }
        if let meanwhile = whileAsked.withLock({ $0 }) { await meanwhile() }
        guard let state = credentialStates.withLock({ $0 }) else {
            throw AppleAuthorizationFailure(.failed, "Apple could not be reached")
        }
        return state
    }

    func observeCredentialRevocation(_ handler: @escaping @Sendable () async -> Void) {
        revocationObservers.withLock { $0.append(handler) }
    }

    /// Posts the revocation notification to every observer, as the system does.
    func postRevocation() async {
        for observer in revocationObservers.withLock({ $0 }) { await observer() }
    }

    func authorize(scopes: [AppleAuthorizationScope], nonce: String?) async throws(AppleAuthorizationFailure)
        -> AppleAuthorization
    {
        let count = authorizations.withLock { count in
            count += 1
            return count
        }
        let code = "apple-code-\(count)"
        issuer.update { $0.appleCodes[code] = .some(nonce) }
        let first = count == 1 && scopes.contains(.fullName)
        return AppleAuthorization(
            user: "apple-user", identityToken: "unused-by-the-sdk", authorizationCode: code,
            givenName: first ? "Alice" : nil, familyName: first ? "Liddell" : nil,
            email: first ? "alice@example.com" : nil)
    }
}

/// A web sheet that lets the fake issuer answer at once, or fails as told.
final class FakeUserAgent: WebAuthenticationUserAgent {
    enum Behavior: Sendable {
        case complete
        case cancel
        case callback(@Sendable (String) -> String)
        /// Never calls back until `cancelActiveSession` (the sheet lost to backgrounding).
        case hang
    }

    let issuer: FakeIssuer
    let behavior = Mutex<Behavior>(.complete)
    let presentable = Mutex(true)
    let presented = Mutex<[WebAuthenticationRequest]>([])
    /// How many times the SDK waited for the scene to become presentable.
    let presentableWaits = Mutex(0)
    /// Notified when a sheet is presented, when the SDK starts waiting for the scene, and when
    /// the scene becomes presentable, for the tests that wait on them.
    let changes = ChangeSignal()
    private let waiting = Mutex<CheckedContinuation<String, any Error>?>(nil)

    init(issuer: FakeIssuer) { self.issuer = issuer }

    func canPresent() -> Bool { presentable.withLock { $0 } }

    /// Makes the scene presentable or not, and wakes an SDK waiting for it.
    func setPresentable(_ value: Bool) {
        presentable.withLock { $0 = value }
        changes.notify()
    }

    /// Waits until a sheet has been presented, at most 10 s; false if none was.
    func waitForSheet() async -> Bool {
        await changes.wait(until: { !presented.withLock { $0.isEmpty } }, deadline: .now + .seconds(10))
    }

    func waitUntilPresentable() async -> Bool {
        presentableWaits.withLock { $0 += 1 }
        changes.notify()
        return await changes.wait(until: { canPresent() }, deadline: .now + .seconds(5))
    }

    func authenticate(_ request: WebAuthenticationRequest) async throws(WebAuthenticationFailure) -> String {
        guard canPresent() else {
            throw WebAuthenticationFailure(.presentationContextInvalid, "scene not active")
        }
        presented.withLock { $0.append(request) }
        changes.notify()
        if request.purpose == .signOut { return try await endSession(request) }
        switch behavior.withLock({ $0 }) {
        case .complete: return issuer.authorize(url: request.url)
        case .cancel: throw WebAuthenticationFailure(.canceledLogin, "the user closed the sheet")
        case .callback(let transform): return transform(issuer.authorize(url: request.url))
        case .hang:
            do {
                return try await withCheckedThrowingContinuation { continuation in
                    waiting.withLock { $0 = continuation }
                }
            } catch {
                throw WebAuthenticationFailure(.canceledLogin, "dismissed")
            }
        }
    }

    /// The end-session request as a browser sheet loads it: a redirect to the post-logout
    /// redirect URI closes it with that URL, an error status fails it, and on any other page the
    /// person closes it.
    private func endSession(_ request: WebAuthenticationRequest) async throws(WebAuthenticationFailure)
        -> String
    {
        if case .cancel = behavior.withLock({ $0 }) {
            throw WebAuthenticationFailure(.canceledLogin, "the user closed the sheet")
        }
        let response: HTTPResponse
        do {
            response = try await issuer.respond(HTTPRequest(url: request.url))
        } catch {
            throw WebAuthenticationFailure(.failed, "the end-session request failed: \(error)")
        }
        if response.status >= 400 {
            throw WebAuthenticationFailure(
                .failed, "the issuer answered \(response.status) with an error page")
        }
        if let location = response.headers["Location"], location.hasPrefix(request.redirectURI) {
            return location
        }
        throw WebAuthenticationFailure(.canceledLogin, "the person closed the sheet on the issuer's page")
    }

    func cancelActiveSession() {
        waiting.withLock { continuation in
            continuation?.resume(throwing: CancellationError())
            continuation = nil
        }
    }
}

/// The `state` a fake post-logout redirect carries.
enum LogoutState: Sendable {
    case echo
    case none
    case other(String)
}

/// An SDK wired to a fake issuer, with storage and a clock the test holds.
struct SDKHarness {
    let issuer: FakeIssuer
    let agent: FakeUserAgent
    let apple: FakeApple
    let storage: InMemoryTokenStorage
    let preferences: InMemoryAppPreferences
    let client: SignInClient

    init(
        issuer: FakeIssuer = FakeIssuer(), profile: BehaviorProfile = .default,
        storage: InMemoryTokenStorage = InMemoryTokenStorage(),
        preferences: InMemoryAppPreferences = InMemoryAppPreferences(),
        transport: (any HTTPTransport)? = nil, clock: (any WallClock)? = nil,
        prefersEphemeralSession: Bool = true, postLogoutRedirectURI: String? = nil, leeway: Int64? = nil,
        taskStarter: any TaskStarter = UnstructuredTaskStarter()
    ) {
        self.issuer = issuer
        self.agent = FakeUserAgent(issuer: issuer)
        let apple = FakeApple(issuer: issuer)
        self.apple = apple
        self.storage = storage
        self.preferences = preferences
        client = SignInClient(
            environment: SignInEnvironment(
                transport: transport ?? issuer.transport, storage: storage, preferences: preferences,
                clock: clock ?? issuer.clock, random: SeededRandom(seed: 1), webAuthentication: agent,
                appleAuthorization: apple, taskStarter: taskStarter))
        self.profile = profile
        self.prefersEphemeralSession = prefersEphemeralSession
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.leeway = leeway
    }

    let profile: BehaviorProfile
    let prefersEphemeralSession: Bool
    let postLogoutRedirectURI: String?
    let leeway: Int64?
    let clientID = "com.example.app"

    var options: SignInOptions {
        SignInOptions(
            issuer: issuer.issuer, clientID: clientID,
            redirectURI: "com.example.app://auth/callback", prefersEphemeralSession: prefersEphemeralSession,
            leeway: leeway,
            profile: profile, postLogoutRedirectURI: postLogoutRedirectURI)
    }

    func configured() async throws -> SDKHarness {
        try await client.configure(options: options)
        return self
    }

    /// Configured with the harness's options as `change` edits them.
    func configured(_ change: (inout SignInOptions) -> Void) async throws -> SDKHarness {
        var options = self.options
        change(&options)
        try await client.configure(options: options)
        return self
    }
}
