import Foundation
import JSON
import TestSupport
import Testing

@testable import Scenario

/// The client registration settings of `issuer:` and `apps:` (scenarios/README.md, "Client
/// settings"): what they read, what they refuse and where, and that they write back.
@Suite struct ClientSettingsTests {
    static let privateJWK = #"{kty: EC, crv: P-256, x: "x", y: "y", d: "d"}"#

    func parse(_ text: String, file: String = "s.yaml", overrides: [String: String] = [:])
        throws(ScenarioError)
        -> Scenario
    {
        try ScenarioLoader.parse(Array(text.utf8), file: file, overrides: overrides)
    }

    /// Every setting is read, from the issuer's mapping and the app's (the app's winning), and
    /// written back the same.
    @Test("every client setting reads and writes back")
    func everySetting() throws {
        let scenario = try parse(
            """
            name: settings
            issuer:
              url: https://issuer.example
              client_id: app
              prompt: login consent
              login_hint: alice@example.com
              ui_locales: fr-CA fr
              organization: org_1
              max_age: 300
              acr_values: urn:acr:silver
              audience: https://api.example
              authorization_parameters: {screen_hint: signup}
            apps:
              - id: app
                client_auth_method: private_key_jwt
                client_assertion_audience: token_endpoint
                client_jwk: \(Self.privateJWK)
                scopes: openid offline_access
                authorization_parameters: "theme=dark&greeting=hello+world%21"
            steps: [launch]
            """)
        let app = try #require(scenario.apps.first)
        #expect(app.prompt == "login consent")
        #expect(app.loginHint == "alice@example.com" && app.uiLocales == "fr-CA fr")
        #expect(app.organization == "org_1" && app.maxAge == 300 && app.acrValues == "urn:acr:silver")
        #expect(app.audience == "https://api.example")
        #expect(app.scopes == ["openid", "offline_access"])
        #expect(
            app.authorizationParameters == [
                "screen_hint": "signup", "theme": "dark", "greeting": "hello world!",
            ])
        #expect(app.clientAuthentication == .privateKeyJWT)
        #expect(app.clientAssertionAudience == .tokenEndpoint)
        guard case .jwk(let jwk)? = app.clientKey else {
            Issue.record("no inline key")
            return
        }
        #expect(jwk["d"] == "d")

        let yaml = ScenarioYAML.render(ScenarioEncoder.document(scenario))
        let read = try ScenarioLoader.parse(Array(yaml.utf8), file: "s.yaml", substitutes: false)
        #expect(read.apps == scenario.apps, "\(yaml)")
    }

    /// An empty value is the same as leaving the key out: a `${VAR:-}` that a run does not set
    /// leaves the setting (or the issuer's) alone.
    @Test("empty values leave settings unset")
    func emptyIsUnset() throws {
        let text = """
            name: empty
            issuer:
              url: https://issuer.example
              client_secret: "${SECRET:-}"
              client_auth_method: "${METHOD:-}"
              prompt: "${PROMPT:-}"
              scopes: "${SCOPES:-}"
              max_age: "${MAX_AGE:-}"
              audience: "${AUDIENCE:-}"
              client_key_file: "${KEY:-}"
              authorization_parameters: "${PARAMS:-}"
              post_logout_redirect_uri: "${LOGOUT:-}"
            steps: [launch]
            """
        let unset = try #require(try parse(text).apps.first)
        #expect(unset.clientSecret == nil && unset.clientAuthentication == nil && unset.prompt == nil)
        #expect(unset.scopes == ["openid", "profile", "email", "offline_access"])
        #expect(unset.maxAge == nil && unset.audience == nil && unset.clientKey == nil)
        #expect(unset.authorizationParameters.isEmpty && unset.postLogoutRedirectURI == nil)

        let set = try #require(
            try parse(
                text,
                overrides: [
                    "SECRET": "s3cret", "METHOD": "client_secret_post", "PROMPT": "omit", "SCOPES": "openid",
                    "MAX_AGE": "60", "PARAMS": "a=1", "LOGOUT": "com.example.app://auth/logout",
                ]
            ).apps.first)
        #expect(set.clientSecret == "s3cret" && set.clientAuthentication == .post && set.prompt == "omit")
        #expect(set.scopes == ["openid"] && set.maxAge == 60 && set.authorizationParameters == ["a": "1"])
        #expect(set.postLogoutRedirectURI == "com.example.app://auth/logout")
    }

    /// `client_key_file` is read relative to the scenario file when the scenario is loaded.
    @Test("client_key_file is relative to the scenario")
    func keyFile() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("-----BEGIN PRIVATE KEY-----\n", named: "client.pem")
        let path = try directory.write(
            """
            name: keyed
            issuer: {url: "https://issuer.example", client_key_file: client.pem}
            steps: [launch]
            """, named: "keyed.yaml")
        let scenario = try ScenarioLoader.load(path: path)
        guard case .file(let keyPath, let text)? = scenario.apps.first?.clientKey else {
            Issue.record("no key file")
            return
        }
        #expect(keyPath.hasSuffix("/client.pem") && text.hasPrefix("-----BEGIN"))
        let missing = try directory.write(
            "name: m\nissuer: {url: \"https://issuer.example\", client_key_file: nope.pem}\nsteps: [launch]\n",
            named: "missing.yaml")
        let error = try #require(throws: ScenarioError.self) { try ScenarioLoader.load(path: missing) }
        #expect(error.location.line == 2 && error.message.contains("does not exist"), "\(error)")
    }

    /// Refusals name the line and column of the setting and what to do instead.
    @Test(
        "refusals",
        arguments: [
            (
                "issuer: {url: 'https://i.example', authorization_parameters: {state: x}}", 2, 63,
                "cannot set state: the SDK sets it"
            ),
            (
                "issuer: {url: 'https://i.example', authorization_parameters: {prompt: login}}", 2, 63,
                "use the prompt setting"
            ),
            (
                "issuer: {url: 'https://i.example', authorization_parameters: 'nonce=1'}", 2, 62,
                "cannot set nonce"
            ),
            (
                "issuer: {url: 'https://i.example', client_auth_method: client_secret_jwt}", 2, 56,
                "has no \"client_secret_jwt\"; did you mean \"client_secret_post\"?"
            ),
            (
                "issuer: {url: 'https://i.example', client_auth_method: client_secret_post}", 2, 56,
                "client_auth_method client_secret_post needs client_secret"
            ),
            (
                "issuer: {url: 'https://i.example', client_auth_method: private_key_jwt, client_secret: s}",
                2, 56,
                "needs client_key_file or client_jwk"
            ),
            (
                "issuer: {url: 'https://i.example', client_auth_method: none, client_secret: s}", 2, 56,
                "sends no client_secret or key"
            ),
            ("issuer: {url: 'https://i.example', client_jwk: {kty: EC}}", 2, 48, "must be a private JWK"),
            ("issuer: {url: 'https://i.example', max_age: -1}", 2, 45, "max_age must be from 0"),
            (
                "issuer: {url: 'https://i.example', client_assertion_audience: aud}", 2, 63,
                "expected one of: issuer, token_endpoint"
            ),
        ])
    func refusals(header: String, line: Int, column: Int, fragment: String) {
        do {
            _ = try parse("name: x\n\(header)\nsteps: [launch]")
            Issue.record("accepted: \(header)")
        } catch {
            #expect((error.location.line, error.location.column) == (line, column), "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    /// Every client setting the loader reads is in the schema, for the issuer and for apps.
    @Test("the schema lists every client setting")
    func schema() throws {
        let schema = try JSONValue.parse(Array(ScenarioSchema.json.utf8))
        let scenario = schema["$defs"]?["scenario"]
        let appKeys = Set(
            scenario?["properties"]?["apps"]?["items"]?["properties"]?.objectValue?.keys ?? [:].keys)
        let issuerForms = scenario?["properties"]?["issuer"]?["anyOf"]?.arrayValue ?? []
        let issuerKeys = Set(issuerForms.compactMap { $0["properties"]?.objectValue?.keys }.flatMap { $0 })
        for key in HeaderDecoder.clientKeys {
            #expect(appKeys.contains(key), "apps: \(key)")
            #expect(issuerKeys.contains(key), "issuer: \(key)")
        }
    }

    /// A secret given by the issuer's settings and a key by the app's is refused at the app,
    /// which must choose.
    @Test("a secret and a key need a method")
    func secretAndKey() {
        let text = """
            name: both
            issuer: {url: "https://i.example", client_secret: s}
            apps:
              - {id: app, client_jwk: \(Self.privateJWK)}
            steps: [launch]
            """
        let error = try? #require(throws: ScenarioError.self) { try parse(text) }
        #expect(error?.location.line == 4)
        #expect(error?.message.contains("has both a secret and a key: set client_auth_method") == true)
    }
}
