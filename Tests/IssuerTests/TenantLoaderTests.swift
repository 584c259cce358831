import Clocks
import Cryptography
import Foundation
import HTTPCore
import Issuer
import JOSE
import JSON
import TestSupport
import Testing

/// Tenant files that load: what each key does to `Tenant.default`, in YAML and in JSON.
@Suite("Tenant files")
struct TenantLoaderTests {
    static let yamlExample = """
        # A partner app, a user and an API on top of the default tenant.
        signing_algorithm: RS256
        require_dpop_nonce: true
        lifetimes: {access_token: 600, refresh_reuse_grace: 0}
        clients:
          - client_id: com.partner.app
            name: Partner App
            redirect_uris: ["com.partner.app://cb", "http://127.0.0.1/cb"]
            post_logout_redirect_uris: ["com.partner.app://logout"]
            grant_types: [authorization_code, refresh_token]
            require_dpop: true
            lifetimes: {refresh_token: 86400}
          - client_id: backend
            client_secret: s3cret
            grant_types: ["urn:ietf:params:oauth:grant-type:token-exchange"]
        users:
          - email: carol@example.com
            password: carol-password
            name: Carol Danvers
            given_name: Carol
            family_name: Danvers
            email_verified: false
            user_id: auth0|carol
        audiences:
          - identifier: https://billing.example.com
            scopes: [read:invoices]
        default_audience: https://billing.example.com
        """

    static let jsonExample = """
        {
          "signing_algorithm": "RS256",
          "require_dpop_nonce": true,
          "lifetimes": {"access_token": 600, "refresh_reuse_grace": 0},
          "clients": [
            {
              "client_id": "com.partner.app",
              "name": "Partner App",
              "redirect_uris": ["com.partner.app://cb", "http://127.0.0.1/cb"],
              "post_logout_redirect_uris": ["com.partner.app://logout"],
              "grant_types": ["authorization_code", "refresh_token"],
              "require_dpop": true,
              "lifetimes": {"refresh_token": 86400}
            },
            {
              "client_id": "backend",
              "client_secret": "s3cret",
              "grant_types": ["urn:ietf:params:oauth:grant-type:token-exchange"]
            }
          ],
          "users": [
            {
              "email": "carol@example.com", "password": "carol-password", "name": "Carol Danvers",
              "given_name": "Carol", "family_name": "Danvers", "email_verified": false,
              "user_id": "auth0|carol"
            }
          ],
          "audiences": [{"identifier": "https://billing.example.com", "scopes": ["read:invoices"]}],
          "default_audience": "https://billing.example.com"
        }
        """

    /// What both examples describe, built by hand from the default tenant.
    static var expectedExample: Tenant {
        var tenant = Tenant.default
        tenant.signingAlgorithm = .rs256
        tenant.requireDPoPNonce = true
        tenant.lifetimes.accessToken = 600
        var partnerLifetimes = tenant.lifetimes
        partnerLifetimes.refreshToken = 86400
        tenant.clients.append(
            ClientRegistration(
                id: "com.partner.app", name: "Partner App",
                redirectURIs: ["com.partner.app://cb", "http://127.0.0.1/cb"],
                postLogoutRedirectURIs: ["com.partner.app://logout"],
                grantTypes: ["authorization_code", "refresh_token"], requireDPoP: true,
                lifetimes: partnerLifetimes))
        tenant.clients.append(
            ClientRegistration(
                id: "backend", secret: "s3cret", redirectURIs: [],
                grantTypes: ["urn:ietf:params:oauth:grant-type:token-exchange"]))
        tenant.users.append(
            UserAccount(
                id: "auth0|carol", email: "carol@example.com", emailVerified: false,
                password: "carol-password",
                name: "Carol Danvers", givenName: "Carol", familyName: "Danvers"))
        tenant.audiences.append(
            APIAudience(identifier: "https://billing.example.com", scopes: ["read:invoices"]))
        tenant.defaultAudience = "https://billing.example.com"
        return tenant
    }

    static func load(_ text: String, _ fileName: String = "tenant.yaml") throws -> Tenant {
        try TenantLoader.load(bytes: Array(text.utf8), fileName: fileName)
    }

    /// A YAML file adds and overrides exactly what it says.
    @Test("a good YAML file")
    func goodYAML() throws {
        let tenant = try Self.load(Self.yamlExample)
        #expect(tenant == Self.expectedExample)
        #expect(tenant.client("backend")?.isPublic == false)
        #expect(tenant.client("com.example.app") == Tenant.default.client("com.example.app"))
    }

    /// The same content as JSON gives the same tenant, from a file on disk.
    @Test("a good JSON file")
    func goodJSON() throws {
        let path = try TemporaryDirectory.shared.write(Self.jsonExample, named: "tenant-good.json")
        #expect(try TenantLoader.load(path: path) == Self.expectedExample)
        let yamlPath = try TemporaryDirectory.shared.write(Self.yamlExample, named: "tenant-good.yml")
        #expect(try TenantLoader.load(path: yamlPath) == Self.expectedExample)
    }

    /// Nothing in the file means the default tenant, whatever the format.
    @Test(
        "an empty file is the default tenant",
        arguments: [
            ("", "t.yaml"), ("\n# only a comment\n", "t.yaml"), ("---\n", "t.yml"), ("", "t.json"),
            ("  \n\t\n", "t.json"), ("{}", "t.json"), ("\u{FEFF}", "t.json"), ("null", "t.json"),
        ])
    func emptyFile(text: String, fileName: String) throws {
        #expect(try Self.load(text, fileName) == Tenant.default)
    }

    /// `pages` picks the page style, in YAML, in JSON, and on an emptied tenant; unset, it is `html`.
    @Test("pages: html or javascript")
    func pageStyle() throws {
        #expect(Tenant.default.pageStyle == .html)
        #expect(try Self.load("require_dpop_nonce: false\n").pageStyle == .html)
        #expect(try Self.load("pages: javascript\n").pageStyle == .javascript)
        #expect(try Self.load("pages: html\n").pageStyle == .html)
        #expect(try Self.load("{\"pages\": \"javascript\"}", "t.json").pageStyle == .javascript)
        let emptied = try Self.load("replace_defaults: true\npages: javascript\n")
        #expect(emptied.pageStyle == .javascript)
        #expect(emptied.clients.isEmpty)
    }

    /// `pushed_authorization_requests` picks the RFC 9126 policy, in YAML and in JSON, and
    /// `lifetimes.pushed_request` the request_uri's lifetime; unset, they are `off` and 60 s.
    @Test("pushed_authorization_requests and lifetimes.pushed_request")
    func pushedAuthorizationRequests() throws {
        #expect(Tenant.default.pushedAuthorizationRequests == .off)
        #expect(Tenant.default.lifetimes.pushedRequest == 60)
        #expect(try Self.load("pages: html\n").pushedAuthorizationRequests == .off)
        for policy in PushedAuthorizationPolicy.allCases {
            let yaml = try Self.load("pushed_authorization_requests: \(policy.rawValue)\n")
            #expect(yaml.pushedAuthorizationRequests == policy)
            let json = try Self.load("{\"pushed_authorization_requests\": \"\(policy.rawValue)\"}", "t.json")
            #expect(json.pushedAuthorizationRequests == policy)
        }
        let tenant = try Self.load(
            """
            pushed_authorization_requests: required
            lifetimes: {pushed_request: 30}
            clients:
              - {client_id: com.example.app, lifetimes: {pushed_request: 90}}
            """)
        #expect(tenant.pushedAuthorizationRequests == .required)
        #expect(tenant.lifetimes.pushedRequest == 30)
        #expect(tenant.client("com.example.app")?.lifetimes?.pushedRequest == 90)
        #expect(tenant.deviations.isEmpty)
    }

    /// `replace_defaults: true` starts from nothing: no default client, user, API or connection.
    @Test("replace_defaults")
    func replaceDefaults() throws {
        let tenant = try Self.load(
            """
            replace_defaults: true
            clients: [{client_id: com.only.app, redirect_uris: ["com.only.app:/cb"]}]
            """)
        #expect(tenant.clients.map(\.id) == ["com.only.app"])
        #expect(tenant.users.isEmpty && tenant.audiences.isEmpty && tenant.connections.isEmpty)
        #expect(tenant.defaultAudience == nil)
        #expect(tenant.signingAlgorithm == .es256)
        #expect(tenant.lifetimes == TokenLifetimes())
    }

    /// An entry for an existing client changes only the fields it lists; null removes a secret.
    @Test("overriding a default client field by field")
    func overrideClient() throws {
        let tenant = try Self.load(
            """
            clients:
              - client_id: com.example.app
                require_dpop: true
                client_secret: made-confidential
            """)
        var expected = Tenant.default.client("com.example.app")!
        expected.requireDPoP = true
        expected.secret = "made-confidential"
        #expect(tenant.clients == [expected])

        let publicAgain = try Self.load(
            "clients: [{client_id: com.example.app, client_secret: made-up}, ]\n")
        #expect(publicAgain.client("com.example.app")?.secret == "made-up")
        let nulled = try Self.load("clients: [{client_id: com.example.app, client_secret: null}]\n")
        #expect(nulled.client("com.example.app")?.isPublic == true)
    }

    /// Users merge by email without regard to case, or by user_id; new users get a stable id.
    @Test("merging users")
    func mergeUsers() throws {
        let tenant = try Self.load(
            """
            users:
              - email: ALICE@example.com
                password: new-alice-password
              - user_id: auth0|bob
                name: Robert Builder
              - email: dave@example.com
            """)
        let alice = try #require(tenant.users.first { $0.id == "auth0|alice" })
        #expect(alice.password == "new-alice-password")
        #expect(alice.email == "ALICE@example.com")
        #expect(alice.name == "Alice Liddell")
        #expect(tenant.users.first { $0.id == "auth0|bob" }?.name == "Robert Builder")
        #expect(tenant.users.count == 3)
        let dave = try #require(tenant.users.last)
        #expect(dave.email == "dave@example.com" && dave.password == nil && dave.emailVerified)
        #expect(dave.id.hasPrefix("auth0|") && dave.id.count == 30)
        let again = try Self.load("users: [{email: Dave@Example.com}]\n")
        #expect(again.users.last?.id == dave.id)
    }

    /// An audience entry for an existing API replaces its scopes; lifetimes apply in any key order.
    @Test("audiences and lifetimes")
    func audiencesAndLifetimes() throws {
        let tenant = try Self.load(
            """
            clients: [{client_id: c.app, lifetimes: {access_token: 30}}]
            audiences: [{identifier: "https://api.example.com", scopes: ["read:items"]}]
            lifetimes:
              id_token: 120
              session: 3600
              transaction: 300
              dpop_proof_window: 30
              authorization_code: 30
              refresh_token: 7200
              refresh_reuse_grace: 5
            """)
        #expect(
            tenant.audiences == [APIAudience(identifier: "https://api.example.com", scopes: ["read:items"])])
        #expect(tenant.defaultAudience == "https://api.example.com")
        var expected = TokenLifetimes()
        expected.idToken = 120
        expected.session = 3600
        expected.transaction = 300
        expected.dpopProofWindow = 30
        expected.authorizationCode = 30
        expected.refreshToken = 7200
        #expect(tenant.lifetimes == expected)
        // The older spelling of the signinsim profile's grace.
        #expect(
            tenant.refreshRotation == RefreshRotationSettings(.signinsim(grace: 5, onReuse: .revokeFamily)))
        expected.accessToken = 30
        #expect(tenant.client("c.app")?.lifetimes == expected)
    }

    /// OpenID connections take their keys inline or from a JSON file next to the tenant file.
    @Test("connections with inline keys and a jwks_file")
    func connections() throws {
        let key = JWK(try P256PrivateKey().publicKey, keyID: "partner-1")
        let keySet = JWKSet(keys: [key])
        let directory = try TemporaryDirectory()
        _ = try directory.write(keySet.json.serializedString(), named: "partner-keys.json")
        let path = try directory.write(
            """
            connections:
              - name: inline
                kind: openid
                issuer: https://idp.example
                audience: my-client
                jwks: \(keySet.json.serializedString())
              - {name: from-file, kind: openid, issuer: "http://127.0.0.1:9000", audience: a,
                 jwks_file: partner-keys.json}
              - {name: apple, kind: apple}
            """, named: "tenant.yaml")
        let tenant = try TenantLoader.load(path: path)
        #expect(
            tenant.connections == [
                ConnectionConfiguration(name: "apple", kind: .apple),
                ConnectionConfiguration(
                    name: "inline",
                    kind: .openIDProvider(issuer: "https://idp.example", audience: "my-client", keys: keySet)),
                ConnectionConfiguration(
                    name: "from-file",
                    kind: .openIDProvider(issuer: "http://127.0.0.1:9000", audience: "a", keys: keySet)),
            ])
    }

    /// A client's `token_endpoint_auth_method` and its keys, inline or from a file; without a
    /// method, a client accepts what its credentials allow.
    @Test("client authentication methods and keys")
    func clientAuthentication() throws {
        let key = JWK(try P256PrivateKey(random: SeededRandom(seed: 42)).publicKey, keyID: "app-1")
        let keySet = JWKSet(keys: [key])
        let directory = try TemporaryDirectory()
        _ = try directory.write(keySet.json.serializedString(), named: "app-keys.json")
        let path = try directory.write(
            """
            clients:
              - {client_id: signed, redirect_uris: ["https://signed.example/cb"],
                 token_endpoint_auth_method: private_key_jwt, jwks: \(keySet.json.serializedString())}
              - {client_id: from-file, redirect_uris: ["https://file.example/cb"], jwks_file: app-keys.json}
              - {client_id: poster, client_secret: s, token_endpoint_auth_method: client_secret_post}
              - {client_id: both, client_secret: s, jwks_file: app-keys.json}
            """, named: "tenant.yaml")
        let tenant = try TenantLoader.load(path: path)
        #expect(tenant.client("signed")?.authenticationMethod == .privateKeyJWT)
        #expect(tenant.client("signed")?.keys == keySet)
        #expect(tenant.client("from-file")?.acceptedAuthenticationMethods == [.privateKeyJWT])
        #expect(tenant.client("from-file")?.isPublic == false)
        #expect(tenant.client("poster")?.acceptedAuthenticationMethods == [.clientSecretPost])
        #expect(
            tenant.client("both")?.acceptedAuthenticationMethods
                == [.clientSecretBasic, .clientSecretPost, .privateKeyJWT])
        #expect(tenant.client("com.example.app")?.acceptedAuthenticationMethods == [.publicClient])
    }

    /// Strings that look like other types in YAML are strings when quoted; JSON strings stay strings.
    @Test("quoted scalars are strings")
    func quotedScalars() throws {
        let yaml = try Self.load("users: [{user_id: \"42\", password: '1234', email: a@b.c}]\n")
        #expect(yaml.users.last?.id == "42")
        #expect(yaml.users.last?.password == "1234")
        let json = try Self.load(
            #"{"users": [{"user_id": "42", "password": "true", "email": "a@b.c"}]}"#, "t.json")
        #expect(json.users.last?.password == "true")
    }

    /// JSON escapes that libyaml would refuse (surrogate pairs) load, because JSON is read as JSON.
    @Test("JSON escapes")
    func jsonEscapes() throws {
        let tenant = try Self.load(
            #"{"users": [{"email": "e@x.y", "name": "Emoji \ud83d\ude00 \u00e9"}]}"#, "t.json")
        #expect(tenant.users.last?.name == "Emoji \u{1F600} é")
    }

    /// A loaded tenant is what the issuer serves: its clients and users show in the admin API.
    @Test("an issuer serves a loaded tenant", arguments: Deployment.allCases)
    func served(deployment: Deployment) async throws {
        let tenant = try Self.load(Self.yamlExample)
        try await withIssuer(deployment, tenant: tenant) { fixture in
            let clients = try await fixture.get("/_admin/clients").jsonBody()
            let partner = clients["clients"]?.arrayValue?.first { $0["client_id"] == "com.partner.app" }
            #expect(partner?["require_dpop"] == true)
            #expect(partner?["public"] == true)
            let backend = clients["clients"]?.arrayValue?.first { $0["client_id"] == "backend" }
            #expect(backend?["public"] == false)
            #expect(backend?["client_secret"] == nil)
            let users = try await fixture.get("/_admin/users").jsonBody()
            #expect(users["users"]?.arrayValue?.contains { $0["user_id"] == "auth0|carol" } == true)
            let discovery = try await fixture.get("/.well-known/openid-configuration").jsonBody()
            #expect(discovery["scopes_supported"]?.arrayValue?.contains("read:invoices") == true)
            let keys = try JWKSet.parse(try await fixture.get("/.well-known/jwks.json").body)
            #expect(keys.keys.first?.algorithm == "RS256")
        }
    }
}
