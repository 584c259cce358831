import Cryptography
import Foundation
import HTTPCore
import JOSE
import JSON
import OAuthCore
import SignInSDK
import Testing

/// What a client registration sets: the authorization request's parameters (prompt and its
/// OpenID Connect Core §11 default, the hints, the extra parameters) and how the client
/// authenticates at the token endpoint.
@Suite struct ClientRegistrationTests {
    static let clientJWK = JWK(try! P256PrivateKey(random: SeededRandom(seed: 31)), keyID: "app-key")

    /// The query of the first authorization request the sheet was given.
    static func authorizeQuery(_ harness: SDKHarness) throws -> FormParameters {
        let url = try #require(harness.agent.presented.withLock { $0.first?.url })
        return try FormURLEncoding.decode(try #require(URLParts(url)?.query))
    }

    static func signInQuery(
        _ request: SignInRequestOptions = SignInRequestOptions(),
        _ change: (inout SignInOptions) -> Void = { _ in }
    ) async throws -> FormParameters {
        let harness = try await SDKHarness().configured(change)
        _ = try await harness.client.signIn(options: request)
        return try authorizeQuery(harness)
    }

    // MARK: - prompt

    /// OpenID Connect Core §11: asking for offline_access sends prompt=consent unless told
    /// otherwise; without offline_access no prompt is sent.
    @Test func promptDefaultsToConsentForOfflineAccess() async throws {
        #expect(try await Self.signInQuery()["prompt"] == "consent")
        let online = try await Self.signInQuery { $0.scopes = ["openid", "profile"] }
        #expect(online["prompt"] == nil)
        let perCall = try await Self.signInQuery(SignInRequestOptions(scopes: ["openid"]))
        #expect(perCall["prompt"] == nil)
    }

    /// `omit` sends no prompt even with offline_access; explicit values replace the rule; the
    /// call's prompt replaces the configured one.
    @Test func promptCanBeOmittedOrReplaced() async throws {
        let omitted = try await Self.signInQuery { $0.prompt = SignInOptions.Prompt(text: "omit") }
        #expect(omitted["prompt"] == nil)
        #expect(omitted["scope"] == "openid profile email offline_access")
        let explicit = try await Self.signInQuery { $0.prompt = "login consent" }
        #expect(explicit["prompt"] == "login consent")
        let perCall = try await Self.signInQuery(SignInRequestOptions(prompt: "none")) { $0.prompt = "login" }
        #expect(perCall["prompt"] == "none")
        #expect(SignInOptions.Prompt(text: "  ") == .automatic)
        #expect(SignInOptions.Prompt(text: "omit") == .omitted)
    }

    // MARK: - Other parameters

    /// login_hint, ui_locales, organization, max_age and acr_values go out when set, the
    /// extra parameters too; the call's login_hint, max_age and parameters win.
    @Test func authorizationParametersAreSent() async throws {
        let configure: (inout SignInOptions) -> Void = {
            $0.loginHint = "alice@example.com"
            $0.uiLocales = "fr-CA fr"
            $0.organization = "org_123"
            $0.maxAge = 300
            $0.acrValues = "urn:mace:incommon:iap:silver"
            $0.audience = "https://api.example.com"
            $0.authorizationParameters = ["screen_hint": "signup", "theme": "dark"]
        }
        let query = try await Self.signInQuery(SignInRequestOptions(), configure)
        #expect(query["login_hint"] == "alice@example.com")
        #expect(query["ui_locales"] == "fr-CA fr")
        #expect(query["organization"] == "org_123")
        #expect(query["max_age"] == "300")
        #expect(query["acr_values"] == "urn:mace:incommon:iap:silver")
        #expect(query["audience"] == "https://api.example.com")
        #expect(query["screen_hint"] == "signup" && query["theme"] == "dark")

        let perCall = try await Self.signInQuery(
            SignInRequestOptions(
                loginHint: "bob@example.com", maxAge: 0, additionalParameters: ["theme": "light"]),
            configure)
        #expect(perCall["login_hint"] == "bob@example.com")
        #expect(perCall["max_age"] == "0")
        #expect(perCall.values(for: "theme") == ["light"])
    }

    /// A parameter the SDK sets itself, or one with its own option, cannot be an extra
    /// parameter: configure refuses it, and so does a sign-in, before any sheet is shown.
    @Test(arguments: [
        "state", "nonce", "code_challenge", "redirect_uri", "response_type", "client_id", "prompt",
    ])
    func reservedParametersAreRefused(name: String) async throws {
        let harness = SDKHarness()
        var options = harness.options
        options.authorizationParameters = [name: "mine"]
        let error = await capture { try await harness.client.configure(options: options) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("\"\(name)\"") == true)

        let configured = try await SDKHarness().configured()
        let perCall = await capture {
            try await configured.client.signIn(
                options: SignInRequestOptions(additionalParameters: [name: "x"]))
        }
        #expect(perCall?.code == .invalidConfiguration)
        #expect(configured.agent.presented.withLock { $0.isEmpty })
    }

    // MARK: - Client authentication

    /// The token request of a sign-in configured by `change`, as the fake issuer received it.
    static func tokenRequest(
        methods: [String]? = nil, _ change: (inout SignInOptions) -> Void
    ) async throws -> HTTPRequest {
        let issuer = FakeIssuer()
        issuer.update { $0.authMethodsSupported = methods }
        let harness = try await SDKHarness(issuer: issuer).configured(change)
        _ = try await harness.client.signIn()
        return try #require(issuer.state.withLock { $0.tokenRequests.first })
    }

    /// client_secret_basic: id and secret form-encoded, then Basic; no secret in the body.
    @Test func clientSecretBasicOnTheWire() async throws {
        let request = try await Self.tokenRequest {
            $0.clientSecret = "s3cret/+:é"
            $0.clientAuthentication = .clientSecretBasic
        }
        let expected = Data("com.example.app:s3cret%2F%2B%3A%C3%A9".utf8).base64EncodedString()
        #expect(request.headers["Authorization"] == "Basic " + expected)
        #expect(try request.formParameters()["client_secret"] == nil)
    }

    /// client_secret_post: the secret in the body, no Authorization header.
    @Test func clientSecretPostOnTheWire() async throws {
        let request = try await Self.tokenRequest {
            $0.clientSecret = "s3cret"
            $0.clientAuthentication = .clientSecretPost
        }
        #expect(request.headers["Authorization"] == nil)
        let form = try request.formParameters()
        #expect(form["client_secret"] == "s3cret" && form["client_id"] == "com.example.app")
    }

    /// none: client_id alone.
    @Test func publicClientOnTheWire() async throws {
        let request = try await Self.tokenRequest { _ in }
        let form = try request.formParameters()
        #expect(request.headers["Authorization"] == nil)
        #expect(form["client_id"] == "com.example.app")
        #expect(form["client_secret"] == nil && form["client_assertion"] == nil)
    }

    /// private_key_jwt: an assertion of RFC 7523's type, signed by the app's key (its kid
    /// named), iss = sub = the client, aud the issuer (or the token endpoint when asked), a
    /// 43-character jti from the injected random source, five minutes of life.
    @Test(arguments: ClientAssertion.Audience.allCases)
    func privateKeyJWTOnTheWire(audience: ClientAssertion.Audience) async throws {
        let request = try await Self.tokenRequest {
            $0.clientKey = Self.clientJWK
            $0.clientAssertionAudience = audience
        }
        let form = try request.formParameters()
        #expect(request.headers["Authorization"] == nil && form["client_secret"] == nil)
        #expect(form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        let assertion = try #require(form["client_assertion"])
        let expectedAudience = audience == .issuer ? "https://issuer.test/" : "https://issuer.test/token"
        let verified = try ClientAssertion.verify(
            assertion, clientID: "com.example.app", keys: JWKCollection(keys: [Self.clientJWK.publicKey]),
            audiences: [expectedAudience], now: 1_800_000_000)
        #expect(verified.expiresAt == 1_800_000_300)
        #expect(verified.id.utf8.count == 43)
        #expect(try JWT.decodeUnverified(assertion).header["kid"] == "app-key")
    }

    /// Each token request gets its own assertion: a refresh does not resend the sign-in's jti.
    @Test func everyRequestHasItsOwnAssertion() async throws {
        let issuer = FakeIssuer()
        let harness = try await SDKHarness(issuer: issuer).configured { $0.clientKey = Self.clientJWK }
        _ = try await harness.client.signIn()
        _ = try await harness.client.renewSession()
        let ids = try issuer.state.withLock { $0.tokenRequests }.map { request in
            try JWT.decodeUnverified(try #require(try request.formParameters()["client_assertion"])).claims[
                "jti"]
        }
        #expect(ids.count == 2 && ids[0] != ids[1])
    }

    /// A request retried with the issuer's DPoP nonce carries a new assertion: the issuer has
    /// spent the first one's jti.
    @Test func aRetriedRequestSignsAgain() async throws {
        let issuer = FakeIssuer()
        issuer.update {
            $0.failNextToken = .json(["error": "use_dpop_nonce"], status: 400, headers: ["DPoP-Nonce": "n-1"])
        }
        let harness = try await SDKHarness(issuer: issuer).configured {
            $0.clientKey = Self.clientJWK
            $0.usesDPoP = true
        }
        _ = try await harness.client.signIn()
        let requests = issuer.state.withLock { $0.tokenRequests }
        #expect(requests.count == 2)
        let ids = try requests.map { request in
            try JWT.decodeUnverified(try #require(try request.formParameters()["client_assertion"])).claims[
                "jti"]
        }
        #expect(ids.count == 2 && ids[0] != ids[1])
    }

    /// With no method configured: a key means private_key_jwt; a secret means Basic when
    /// discovery lists it or lists nothing, Post when only Post is listed, Basic when neither
    /// is (RFC 6749 §2.3.1); nothing means none.
    @Test(
        arguments: [
            (nil, "basic"), (["client_secret_basic", "client_secret_post"], "basic"),
            (["client_secret_post"], "post"),
            (["private_key_jwt"], "basic"),
        ] as [([String]?, String)])
    func unsetMethodIsChosen(methods: [String]?, expected: String) async throws {
        let request = try await Self.tokenRequest(methods: methods) { $0.clientSecret = "s3cret" }
        let form = try request.formParameters()
        #expect((request.headers["Authorization"] != nil) == (expected == "basic"))
        #expect((form["client_secret"] != nil) == (expected == "post"))
        let keyed = try await Self.tokenRequest(methods: ["client_secret_post"]) {
            $0.clientKey = Self.clientJWK
        }
        #expect(try keyed.formParameters()["client_assertion"] != nil)
    }

    /// A method without its credential, a credential the method would ignore, both a secret
    /// and a key with no method, or a public key are refused at configure.
    @Test(arguments: [
        "basic without secret", "post with key", "jwt without key", "jwt with secret", "none with secret",
        "secret and key", "public key", "negative max_age", "omit with values",
    ])
    func contradictionsAreRefused(name: String) async throws {
        let harness = SDKHarness()
        var options = harness.options
        switch name {
        case "basic without secret": options.clientAuthentication = .clientSecretBasic
        case "post with key":
            options.clientAuthentication = .clientSecretPost
            options.clientSecret = "s"
            options.clientKey = Self.clientJWK
        case "jwt without key": options.clientAuthentication = .privateKeyJWT
        case "jwt with secret":
            options.clientAuthentication = .privateKeyJWT
            options.clientKey = Self.clientJWK
            options.clientSecret = "s"
        case "none with secret":
            options.clientAuthentication = .publicClient
            options.clientSecret = "s"
        case "secret and key":
            options.clientSecret = "s"
            options.clientKey = Self.clientJWK
        case "public key": options.clientKey = Self.clientJWK.publicKey
        case "omit with values": options.prompt = "omit login"
        default: options.maxAge = -1
        }
        let error = await capture { try await harness.client.configure(options: options) }
        #expect(error?.code == .invalidConfiguration, "\(name)")
    }

    /// An error the token endpoint answers names the method the request used, so that a
    /// client registered for another method is told apart from a wrong secret.
    @Test(arguments: [
        TokenEndpointAuthMethod.clientSecretPost, .clientSecretBasic, .privateKeyJWT, .publicClient,
    ])
    func tokenErrorsNameTheMethod(method: TokenEndpointAuthMethod) async throws {
        let issuer = FakeIssuer()
        issuer.update {
            $0.failNextToken = .json(
                ["error": "invalid_client", "error_description": "client authentication failed"], status: 401)
        }
        let harness = try await SDKHarness(issuer: issuer).configured {
            $0.clientAuthentication = method
            switch method {
            case .clientSecretBasic, .clientSecretPost: $0.clientSecret = "s3cret"
            case .privateKeyJWT: $0.clientKey = Self.clientJWK
            case .publicClient: break
            }
        }
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .tokenRequestFailed)
        #expect(error?.oauthError == "invalid_client")
        #expect(
            error?.message.hasSuffix("(client authentication: \(method.rawValue))") == true,
            "\(String(describing: error))")
    }
}
