import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing
import WorldVocabulary

@testable import Issuer

/// The default tenant breaking `deviations` on purpose.
func deviatingTenant(_ deviations: Set<IssuerDeviation>, base: Tenant = .default) -> Tenant {
    var tenant = base
    tenant.deviations = deviations
    return tenant
}

/// A redirect URI near miss, the one deviation that accepts it, and near misses of other kinds
/// that the deviation must still refuse.
struct RedirectVariation: Sendable, CustomTestStringConvertible {
    var deviation: IssuerDeviation
    var accepted: String
    var stillRefused: [String]

    var testDescription: String { deviation.rawValue }

    static let registered = NativeApp.redirectURI
    static let all: [RedirectVariation] = [
        RedirectVariation(
            deviation: .redirectURIExtraPath, accepted: registered + "/more",
            stillRefused: [registered + "/", registered + "?x=1", "com.example.app://auth/Callback"]),
        RedirectVariation(
            deviation: .redirectURITrailingSlash, accepted: registered + "/",
            stillRefused: [registered + "/more", registered + "?x=1", registered + "//"]),
        RedirectVariation(
            deviation: .redirectURIExtraQuery, accepted: registered + "?x=1",
            stillRefused: [registered + "/", registered + "/more", registered + "?", registered + "#x"]),
        RedirectVariation(
            deviation: .redirectURICaseInsensitive, accepted: "com.example.app://AUTH/Callback",
            stillRefused: [registered + "/", registered + "?x=1", "com.example.app://auth/callbacks"]),
        RedirectVariation(
            deviation: .redirectURIUserInfo, accepted: "com.example.app://someone@auth/callback",
            stillRefused: [
                registered + "/", "com.example.app://someone@auth/callback/more",
                "com.example.app://someone@evil/callback",
            ]),
    ]
}

/// Each deviation breaks its one rule, and the same request without it is refused (or the
/// member it leaves out is there): `IssuerDeviation`, docs/issuer.md "Deviations".
@Suite("Issuer deviations")
struct IssuerDeviationTests {
    static func discovery(_ fixture: IssuerFixture) async throws -> [String: JSONValue] {
        try #require(try await fixture.get("/.well-known/openid-configuration").jsonBody().objectValue)
    }

    /// Each discovery deviation leaves out its one member, which the tenant without it serves,
    /// and changes nothing else; the endpoint it names is still served.
    @Test(
        "discovery deviations leave out one member",
        arguments: [
            (IssuerDeviation.discoveryOmitsSubjectTypes, "subject_types_supported"),
            (.discoveryOmitsPKCEMethods, "code_challenge_methods_supported"),
            (.noIssParameter, "authorization_response_iss_parameter_supported"),
            (.noEndSessionEndpoint, "end_session_endpoint"),
            (.noRevocationEndpoint, "revocation_endpoint"),
        ])
    func discoveryOmits(deviation: IssuerDeviation, member: String) async throws {
        try await withIssuer(.inProcess) { normalFixture in
            let normal = try await Self.discovery(normalFixture)
            #expect(normal[member] != nil)
            let expected = normal.filter { $0.key != member }
            try await withIssuer(.inProcess, tenant: deviatingTenant([deviation])) { fixture in
                let document = try await Self.discovery(fixture)
                #expect(document[member] == nil)
                #expect(document == expected)
                // The endpoints stay.
                #expect(try await fixture.get("/oidc/logout").status == 200)
                #expect(
                    try await fixture.postForm(
                        "/oauth/revoke", ["token": "unknown", "client_id": NativeApp.clientID]
                    ).status == 200)
            }
        }
    }

    /// `discovery-advertises-plain` lists `plain` beside `S256`, but `plain` is still refused.
    @Test("discovery-advertises-plain advertises only")
    func discoveryAdvertisesPlain() async throws {
        let plain = NativeApp.authorization(["code_challenge_method": "plain"])
        try await withIssuer(.inProcess) { fixture in
            let document = try await Self.discovery(fixture)
            #expect(document["code_challenge_methods_supported"] == ["S256"])
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.discoveryAdvertisesPlain])) { fixture in
            let document = try await Self.discovery(fixture)
            #expect(document["code_challenge_methods_supported"] == ["S256", "plain"])
            var browser = Browser(fixture)
            try expectAuthorizationError(
                try await browser.authorize(plain), "invalid_request", fixture: fixture)
        }
    }

    /// RFC 9207: `iss` in every authorization response and advertised; `no-iss-parameter`
    /// removes both, `iss-parameter-omitted` only the parameter.
    @Test(
        "iss in authorization responses",
        arguments: [
            ([], true, true), ([IssuerDeviation.noIssParameter], false, false),
            ([.issParameterOmitted], false, true),
        ] as [(Set<IssuerDeviation>, Bool, Bool)])
    func issParameter(deviations: Set<IssuerDeviation>, sendsIss: Bool, advertisesIss: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviatingTenant(deviations)) { fixture in
            let advertised = try await Self.discovery(fixture)[
                "authorization_response_iss_parameter_supported"]
            #expect(advertised == (advertisesIss ? true : nil))
            var browser = Browser(fixture)
            let error = try redirectParameters(
                try await browser.authorize(NativeApp.authorization(["scope": "bogus"])))
            #expect(error["error"] == "invalid_scope")
            let success = try redirectParameters(try await browser.signIn())
            #expect(success["code"] != nil)
            var stranger = Browser(fixture)
            let denied = try redirectParameters(
                try await stranger.authorize(NativeApp.authorization(["prompt": "none"])))
            #expect(denied["error"] == "login_required")
            for parameters in [error, success, denied] {
                #expect(parameters["iss"] == (sendsIss ? fixture.baseURL : nil), "\(parameters)")
                #expect(parameters["state"] == NativeApp.state)
            }
        }
    }

    /// `jwks-private-members` publishes the signing keys with their private members, which
    /// do make signing keys of the published public ones; without it, only public members.
    @Test("jwks-private-members", arguments: [JWSAlgorithm.es256, .rs256])
    func jwksPrivateMembers(algorithm: JWSAlgorithm) async throws {
        var base = Tenant.default
        base.signingAlgorithm = algorithm
        try await withIssuer(.inProcess, tenant: base) { fixture in
            let set = try JWKSet.parse(try await fixture.get("/.well-known/jwks.json").body)
            #expect(set.keys.allSatisfy { !$0.isPrivate })
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.jwksPrivateMembers], base: base)) {
            fixture in
            let response = try await fixture.get("/.well-known/jwks.json")
            let json = try response.jsonBody()
            let members = try #require(json["keys"]?.arrayValue?.first)
            let expectedMembers = algorithm == .es256 ? ["d"] : ["d", "p", "q", "dp", "dq", "qi"]
            #expect(JWK.privateMembers(in: members) == expectedMembers)
            let published = try JWK(json: members)
            let active = fixture.issuer.state.withLock { $0.keys.active }
            #expect(published.publicKey == active.publicJWK)
            // The private part is the issuer's: a signer made of it signs what the public key verifies.
            let forged = try JWS.sign(payload: Array("{}".utf8), signer: try JWSSigner(jwk: published))
            #expect(throws: Never.self) { try JWS.parse(forged).verify(with: active.publicJWK) }
        }
    }

    /// Each redirect URI variation is accepted by its deviation alone, and the code goes to the
    /// URI as the request named it; near misses of other kinds are still refused.
    @Test("redirect URI variations", arguments: RedirectVariation.all)
    func redirectURIVariation(_ variation: RedirectVariation) async throws {
        try await withIssuer(.inProcess) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(
                try await browser.authorize(NativeApp.authorization(["redirect_uri": variation.accepted])))
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([variation.deviation])) { fixture in
            var browser = Browser(fixture)
            for uri in variation.stillRefused {
                let response = try await browser.authorize(NativeApp.authorization(["redirect_uri": uri]))
                #expect(response.status == 400, "\(uri)")
                #expect(response.headers["Location"] == nil, "\(uri)")
            }
            let redirect = try await browser.signIn(
                NativeApp.authorization(["redirect_uri": variation.accepted]))
            let location = try #require(redirect.headers["Location"])
            let separator = variation.accepted.contains("?") ? "&" : "?"
            #expect(location.hasPrefix(variation.accepted + separator + "code="), "\(location)")
            let parameters = try redirectParameters(redirect, to: variation.accepted)
            #expect(parameters["state"] == NativeApp.state)
            // Errors go there too, once the URI is taken for the client's.
            let error = try await browser.authorize(
                NativeApp.authorization(["redirect_uri": variation.accepted, "scope": "bogus"]))
            #expect(error.headers["Location"]?.hasPrefix(variation.accepted + separator + "error=") == true)
        }
    }

    /// `loopback-port-exact` refuses a loopback redirect on a port other than the registered one,
    /// which RFC 8252 §7.3 accepts; the registered URI itself still works.
    @Test("loopback-port-exact")
    func loopbackPortExact() async throws {
        let withPort = NativeApp.authorization(["redirect_uri": "http://127.0.0.1:49152/callback"])
        try await withIssuer(.inProcess) { fixture in
            var browser = Browser(fixture)
            try expectLoginPage(try await browser.authorize(withPort))
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.loopbackPortExact])) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(try await browser.authorize(withPort))
            try expectLoginPage(
                try await browser.authorize(
                    NativeApp.authorization(["redirect_uri": NativeApp.loopbackRedirectURI])))
        }
    }

    /// `private-use-redirects-refused` refuses the registered private-use redirect URI, which is
    /// otherwise taken; a registered loopback URI still works.
    @Test("private-use-redirects-refused")
    func privateUseRedirectsRefused() async throws {
        let privateUse = NativeApp.authorization()
        #expect(privateUse["redirect_uri"]?.hasPrefix("com.example.app:") == true)
        try await withIssuer(.inProcess) { fixture in
            var browser = Browser(fixture)
            try expectLoginPage(try await browser.authorize(privateUse))
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.privateUseRedirectsRefused])) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(try await browser.authorize(privateUse))
            try expectLoginPage(
                try await browser.authorize(
                    NativeApp.authorization(["redirect_uri": NativeApp.loopbackRedirectURI])))
        }
    }

    /// `allow-localhost-redirects` accepts `http://localhost` on any port where a loopback IP is
    /// registered, and the code goes there; other paths are still refused.
    @Test("allow-localhost-redirects at the authorization endpoint")
    func localhostRedirects() async throws {
        let localhost = "http://localhost:5000/callback"
        let parameters = NativeApp.authorization(["redirect_uri": localhost])
        try await withIssuer(.inProcess) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(try await browser.authorize(parameters))
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.allowLocalhostRedirects])) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(
                try await browser.authorize(
                    NativeApp.authorization(["redirect_uri": "http://localhost:5000/other"])))
            let redirect = try await browser.signIn(parameters)
            #expect(redirect.headers["Location"]?.hasPrefix(localhost + "?code=") == true)
            #expect(try redirectParameters(redirect, to: localhost)["state"] == NativeApp.state)
        }
    }

    /// `allow-localhost-redirects` lets `http://localhost` be registered, in a tenant file (whatever
    /// the order of its keys) and through the admin API; without it, both refuse it.
    @Test("allow-localhost-redirects at registration")
    func localhostRegistration() async throws {
        let client = """
            clients:
              - client_id: local
                redirect_uris: ["http://localhost/cb"]
                post_logout_redirect_uris: ["http://localhost:8000/bye"]

            """
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array(client.utf8), fileName: "t.yaml")
        }
        #expect(error.message.contains("http redirect URIs are allowed only for loopback IP addresses"))
        let tenant = try TenantLoader.load(
            bytes: Array((client + "deviations: [allow-localhost-redirects]\n").utf8), fileName: "t.yaml")
        #expect(tenant.client("local")?.redirectURIs == ["http://localhost/cb"])

        let body: JSONValue = ["client_id": "local", "redirect_uris": ["http://localhost/cb"]]
        try await withIssuer(.inProcess) { fixture in
            let response = try await fixture.postJSON("/_admin/clients", body)
            #expect(response.status == 400)
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.allowLocalhostRedirects])) { fixture in
            let response = try await fixture.postJSON("/_admin/clients", body)
            #expect(response.status == 201)
        }
    }

    /// `errors-shown-as-page`: an error that would go back to the client is a 400 page naming
    /// it; a good request still gets the login page.
    @Test("errors-shown-as-page")
    func errorsShownAsPage() async throws {
        let bogus = NativeApp.authorization(["scope": "bogus"])
        try await withIssuer(.inProcess) { fixture in
            var browser = Browser(fixture)
            try expectAuthorizationError(
                try await browser.authorize(bogus), "invalid_scope", fixture: fixture)
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.errorsShownAsPage])) { fixture in
            var browser = Browser(fixture)
            let page = try expectErrorPage(try await browser.authorize(bogus))
            #expect(page.source.contains("invalid_scope"))
            let unsupported = try expectErrorPage(
                try await browser.authorize(NativeApp.authorization(["response_type": "token"])))
            #expect(unsupported.source.contains("unsupported_response_type"))
            try expectLoginPage(try await browser.authorize())
        }
    }

    /// `post-logout-redirect-prefix` redirects to a URI that starts with a registered one, as
    /// given, with `state`; without it, that is refused. An unrelated URI stays refused.
    @Test("post-logout-redirect-prefix")
    func postLogoutRedirectPrefix() async throws {
        let longer = "com.example.app://auth/logout/more"
        let query = LogoutTests.logoutQuery([
            "client_id": NativeApp.clientID, "post_logout_redirect_uri": longer, "state": "bye",
        ])
        try await withIssuer(.inProcess) { fixture in
            var browser = Browser(fixture)
            try expectErrorPage(try await browser.get(query))
        }
        try await withIssuer(.inProcess, tenant: deviatingTenant([.postLogoutRedirectPrefix])) { fixture in
            var browser = Browser(fixture)
            let response = try await browser.get(query)
            #expect(response.headers["Location"] == longer + "?state=bye")
            try expectErrorPage(
                try await browser.get(
                    LogoutTests.logoutQuery([
                        "client_id": NativeApp.clientID,
                        "post_logout_redirect_uri": "com.example.app://auth/log",
                    ])))
        }
    }

    /// The logout decision itself: the prefix is followed only with the deviation.
    @Test("post-logout-redirect-prefix decision")
    func postLogoutPrefixDecision() throws {
        let state = IssuerState(
            tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
        let facts = LogoutRequestFacts(
            clientID: NativeApp.clientID, postLogoutRedirectURI: "com.example.app://auth/logout.evil")
        #expect(
            state.logoutDecision(facts, hint: .absent, deviations: [.postLogoutRedirectPrefix])
                == .redirect(to: "com.example.app://auth/logout.evil", state: nil))
        guard case .refused = state.logoutDecision(facts, hint: .absent, deviations: []) else {
            Issue.record("the prefix was followed without the deviation")
            return
        }
    }

    /// `deviations` in a tenant file: known names parse; an unknown one is refused at its place
    /// with the nearest name.
    @Test("deviations in a tenant file")
    func tenantFile() throws {
        let tenant = try TenantLoader.load(
            bytes: Array("deviations: [pkce-optional, redirect-uri-extra-path]\n".utf8), fileName: "t.yaml")
        #expect(tenant.deviations == [.pkceOptional, .redirectURIExtraPath])
        #expect(tenant.deviates(.pkceOptional) && !tenant.deviates(.pkcePlainAllowed))
        #expect(try TenantLoader.load(bytes: [], fileName: "t.yaml").deviations.isEmpty)
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(
                bytes: Array("deviations:\n  - pkce-optional\n  - redirect-uri-extra-paths\n".utf8),
                fileName: "t.yaml")
        }
        #expect(error.line == 3 && error.column == 5, "\(error)")
        #expect(
            error.message
                == "unknown deviation \"redirect-uri-extra-paths\"; did you mean \"redirect-uri-extra-path\"?",
            "\(error)")
    }
}
