import Foundation
import JSON
import TestSupport
import Testing

/// `sign-in`'s client registration options, through the built binary: the authentication
/// method named in token errors, usage errors for contradictions and reserved parameters,
/// private_key_jwt against a served issuer that registers the key, and `--deny-consent`
/// failing when no consent page appears.
@Suite("signinsim sign-in: client settings")
struct ClientSettingsCommandTests {
    /// The embedded issuer's app is public: a secret it sends is refused, and the error names
    /// the method the SDK used (Basic, the discovery default; Post when asked).
    @Test("a token error names the client authentication method", arguments: ["", "client_secret_post"])
    func errorNamesTheMethod(method: String) async throws {
        let result = try await SignInSimBinary.run(
            ["sign-in", "--client-secret", "not-registered", "--client-auth-method", method])
        #expect(result.status == 1)
        #expect(result.standardError.contains("token_request_failed"), "\(result.standardError)")
        #expect(result.standardError.contains("invalid_client"))
        let expected = method.isEmpty ? "client_secret_basic" : method
        #expect(
            result.standardError.contains("(client authentication: \(expected))"), "\(result.standardError)")
        #expect(!result.standardError.contains("not-registered"))
    }

    /// The Apple exchange is a token request too: its error names the method.
    @Test("apple-sign-in names the client authentication method")
    func appleErrorNamesTheMethod() async throws {
        let result = try await SignInSimBinary.run([
            "apple-sign-in", "--email", "ann@example.com", "--client-secret", "not-registered",
            "--client-auth-method", "client_secret_post",
        ])
        #expect(result.status == 1)
        #expect(
            result.standardError.contains("(client authentication: client_secret_post)"),
            "\(result.standardError)")
    }

    /// The authorization request's options are taken and the sign-in goes through.
    @Test("authorization request options")
    func authorizationOptions() async throws {
        let result = try await SignInSimBinary.run([
            "sign-in", "--prompt", "login consent", "--login-hint", "alice@example.com", "--ui-locales",
            "fr-CA",
            "--max-age", "600", "--acr-values", "urn:acr:silver", "--organization", "org_1", "--auth-param",
            "theme=dark", "--scope", "openid profile email offline_access", "--audience",
            "https://api.example.com",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try JSONValue.parse(result.standardOutput)["claims"]?["auth_time"] != nil)
    }

    /// Contradictions and reserved names are usage errors, before anything starts.
    @Test(
        "usage errors",
        arguments: [
            (["--auth-param", "state=mine"], "is set by the SDK itself"),
            (["--auth-param", "prompt=login"], "has its own option (prompt)"),
            (["--client-auth-method", "private_key_jwt"], "private_key_jwt needs the client's private key"),
            (["--client-auth-method", "client_secret_post"], "client_secret_post needs a client secret"),
            (["--client-auth-method", "client_secret_jwt"], "client_secret_jwt"),
            (["--max-age", "-5"], "expected a non-negative integer"),
            (["--client-key", "/nonexistent/key.pem"], "cannot read the file"),
        ])
    func usageErrors(arguments: [String], fragment: String) async throws {
        let result = try await SignInSimBinary.run(["sign-in"] + arguments)
        #expect(result.status == 64 || result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains(fragment), "\(result.standardError)")
    }

    /// private_key_jwt end to end: a key from `jwk generate`, its public half registered in a
    /// served issuer's tenant, the sign-in and refresh signing assertions with it; another key
    /// is refused, and the error names private_key_jwt.
    @Test("private_key_jwt against a served issuer")
    func privateKeyJWT() async throws {
        let directory = try TemporaryDirectory()
        let generated = try await SignInSimBinary.run([
            "jwk", "generate", "--alg", "ES256", "--kid", "cli-key",
        ])
        let keyFile = try directory.write(generated.standardOutput, named: "client-key.json")
        let publicKey = try await SignInSimBinary.run(["jwk", "public"], input: generated.standardOutput)
        let stranger = try await SignInSimBinary.run([
            "jwk", "generate", "--alg", "ES256", "--kid", "cli-key",
        ])
        let strangerFile = try directory.write(stranger.standardOutput, named: "stranger-key.json")
        let tenant = try directory.write(
            """
            {"clients": [{"client_id": "com.example.signed",
                          "redirect_uris": ["com.example.signed://auth/callback"],
                          "token_endpoint_auth_method": "private_key_jwt",
                          "jwks": {"keys": [\(publicKey.standardOutput)]}}]}
            """, named: "tenant.json")
        let (serve, issuer) = try await ServeTests.startServe(["--tenant", tenant])
        let client = [
            "--issuer", issuer, "--client-id", "com.example.signed", "--redirect-uri",
            "com.example.signed://auth/callback",
        ]
        let signed = try await SignInSimBinary.run(
            ["sign-in"] + client + ["--client-key", keyFile, "--refresh"])
        #expect(signed.status == 0, "\(signed.standardError)")
        #expect(try JSONValue.parse(signed.standardOutput)["refreshed"] == true)

        let refused = try await SignInSimBinary.run(["sign-in"] + client + ["--client-key", strangerFile])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("invalid_client"), "\(refused.standardError)")
        #expect(refused.standardError.contains("(client authentication: private_key_jwt)"))
        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }

    /// `--deny-consent` where the issuer shows no consent page (it remembers an earlier
    /// consent, and no prompt asks for it again) fails with consent_not_shown instead of
    /// signing in.
    @Test("--deny-consent without a consent page fails")
    func denyWithoutConsentPage() async throws {
        let (serve, issuer) = try await ServeTests.startServe()
        let approved = try await SignInSimBinary.run(["sign-in", "--issuer", issuer])
        #expect(approved.status == 0, "\(approved.standardError)")
        let denied = try await SignInSimBinary.run([
            "sign-in", "--issuer", issuer, "--prompt", "omit", "--deny-consent",
        ])
        #expect(denied.status == 1)
        #expect(denied.standardError.contains("consent_not_shown"), "\(denied.standardError)")
        #expect(denied.standardOutput.isEmpty)
        let asked = try await SignInSimBinary.run(["sign-in", "--issuer", issuer, "--deny-consent"])
        #expect(asked.status == 1)
        #expect(asked.standardError.contains("access_denied"), "\(asked.standardError)")
        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }
}
