import Foundation
import HTTPCore
import HTTPServer
import JOSE
import JSON
import TestSupport
import Testing

/// End-to-end tests of the built `signinsim` binary: arguments in, text and exit status out.
@Suite("signinsim binary")
struct CommandLineTests {
    /// `version` and `--version` print the version and exit 0.
    @Test("version")
    func version() async throws {
        for arguments in [["version"], ["--version"]] {
            let result = try await SignInSimBinary.run(arguments)
            #expect(result.status == 0)
            #expect(result.standardOutput.hasPrefix("signinsim "))
        }
    }

    /// A usage error prints `Error:` and the usage line to stderr and exits 64.
    @Test("usage errors exit 64")
    func usageErrorExit() async throws {
        let result = try await SignInSimBinary.run(["jwt", "verify", "token"])
        #expect(result.status == 64)
        #expect(
            result.standardError.hasPrefix(
                "Error: Missing expected argument '--jwks <file-or-url>'\nUsage: signinsim jwt verify"))
        #expect(result.standardError.contains("See 'signinsim jwt verify --help' for more information."))
    }

    /// Help goes to stdout and exits 0.
    @Test("help exits 0")
    func help() async throws {
        let result = try await SignInSimBinary.run(["jwk", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("SUBCOMMANDS:"))
    }

    /// generate → public → sign → decode → verify works end to end for each algorithm.
    @Test("JWK and JWT round trip through the binary", arguments: ["ES256", "RS256", "PS256"])
    func roundTrip(alg: String) async throws {
        let generated = try await SignInSimBinary.run([
            "jwk", "generate", "--alg", alg, "--kid", "cli-\(alg)",
        ])
        #expect(generated.status == 0, "\(generated.standardError)")
        let privateJWK = try JWK.parse(generated.standardOutput)
        #expect(privateJWK.isPrivate)
        #expect(privateJWK.keyID == "cli-\(alg)")
        #expect(privateJWK.algorithm == alg)

        let publicResult = try await SignInSimBinary.run(["jwk", "public"], input: generated.standardOutput)
        #expect(publicResult.status == 0)
        let publicJWK = try JWK.parse(publicResult.standardOutput)
        #expect(!publicJWK.isPrivate)

        let keyFile = try TemporaryDirectory.shared.write(generated.standardOutput, named: "key-\(alg).json")
        let jwksFile = try TemporaryDirectory.shared.write(
            publicResult.standardOutput, named: "pub-\(alg).json")
        let claims =
            #"{"iss":"https://issuer.example/","aud":"app","sub":"alice","exp":2000000000,"nonce":"n1"}"#
        let signed = try await SignInSimBinary.run(["jwt", "sign", "--key", keyFile, "--claims", claims])
        #expect(signed.status == 0, "\(signed.standardError)")
        let token = signed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        let decoded = try await SignInSimBinary.run(["jwt", "decode", token])
        #expect(decoded.status == 0)
        let document = try JSONValue.parse(decoded.standardOutput)
        #expect(document["header"]?["alg"] == .string(alg))
        #expect(document["claims"]?["sub"] == "alice")

        let verified = try await SignInSimBinary.run([
            "jwt", "verify", token, "--jwks", jwksFile, "--iss", "https://issuer.example", "--aud", "app",
            "--nonce", "n1", "--now", "1900000000",
        ])
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(try JSONValue.parse(verified.standardOutput)["sub"] == "alice")
    }

    /// Verification failures exit 1 and say exactly why.
    @Test("verify failures exit 1 with the reason")
    func verifyFailures() async throws {
        let generated = try await SignInSimBinary.run(["jwk", "generate", "--alg", "ES256"])
        let keyFile = try TemporaryDirectory.shared.write(generated.standardOutput, named: "key-fail.json")
        let publicResult = try await SignInSimBinary.run(["jwk", "public"], input: generated.standardOutput)
        let jwksFile = try TemporaryDirectory.shared.write(
            #"{"keys":[\#(publicResult.standardOutput)]}"#, named: "jwks-fail.json")
        let signed = try await SignInSimBinary.run([
            "jwt", "sign", "--key", keyFile, "--claims", #"{"aud":"app","exp":1000,"nonce":"n1"}"#,
        ])
        let token = signed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let cases: [([String], String)] = [
            (["--now", "999"], ""),
            (["--now", "1000"], "[expired]"),
            (["--now", "999", "--aud", "other"], "[audience_mismatch]"),
            (["--now", "999", "--nonce", "n2"], "[nonce_mismatch]"),
            (["--now", "999", "--iss", "https://issuer"], "[missing_claim]"),
        ]
        for (extra, reason) in cases {
            let result = try await SignInSimBinary.run(["jwt", "verify", token, "--jwks", jwksFile] + extra)
            if reason.isEmpty {
                #expect(result.status == 0, "\(extra): \(result.standardError)")
            } else {
                #expect(result.status == 1, "\(extra)")
                #expect(result.standardError.hasPrefix("Error: invalid token: "), "\(result.standardError)")
                #expect(result.standardError.contains(reason), "\(extra): \(result.standardError)")
            }
        }
    }

    /// Issue 27: `--leeway` and `--now` at the ends of Int64 overflowed the time checks and
    /// crashed; values out of range are usage errors now (exit 64), and the largest accepted
    /// ones are judged without overflow.
    @Test("extreme --leeway and --now are usage errors, not crashes")
    func extremeTimes() async throws {
        let generated = try await SignInSimBinary.run(["jwk", "generate", "--alg", "ES256"])
        let keyFile = try TemporaryDirectory.shared.write(generated.standardOutput, named: "key-extreme.json")
        let publicResult = try await SignInSimBinary.run(["jwk", "public"], input: generated.standardOutput)
        let jwksFile = try TemporaryDirectory.shared.write(
            publicResult.standardOutput, named: "jwks-extreme.json")
        let signed = try await SignInSimBinary.run([
            "jwt", "sign", "--key", keyFile, "--claims", #"{"exp":1000,"nbf":900,"iat":900}"#,
        ])
        let token = signed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let refused: [[String]] = [
            ["--leeway", "9223372036854775807"],
            ["--now", "-9223372036854775808", "--leeway", "1"],
            ["--now", "9223372036854775807"],
            ["--now", "253402300800"],
        ]
        for extra in refused {
            let result = try await SignInSimBinary.run(["jwt", "verify", token, "--jwks", jwksFile] + extra)
            #expect(result.status == 64, "\(extra): \(result.standardError)")
            #expect(result.standardError.hasPrefix("Error: The value '"), "\(extra): \(result.standardError)")
        }
        // The widest window accepted: a leeway of the whole range at either end of it.
        let widest = String(253_402_300_799 + 62_135_596_800)
        for now in ["-62135596800", "253402300799"] {
            let result = try await SignInSimBinary.run([
                "jwt", "verify", token, "--jwks", jwksFile, "--now", now, "--leeway", widest,
            ])
            #expect(result.status == 0, "--now \(now): \(result.standardError)")
        }
    }

    /// Issue 27: `--jwks` took a private JWK, or a set holding one, as if it were public. A
    /// verification key set holds public keys only: private members and secret keys are refused.
    @Test("--jwks with a private or secret key is refused")
    func privateKeysRefused() async throws {
        let generated = try await SignInSimBinary.run([
            "jwk", "generate", "--alg", "ES256", "--kid", "leaked",
        ])
        let keyFile = try TemporaryDirectory.shared.write(generated.standardOutput, named: "key-private.json")
        let signed = try await SignInSimBinary.run([
            "jwt", "sign", "--key", keyFile, "--claims", #"{"exp":1000}"#,
        ])
        let token = signed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let publicResult = try await SignInSimBinary.run(["jwk", "public"], input: generated.standardOutput)
        let publicKey = publicResult.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let secret = #"{"kty":"oct","kid":"hmac","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"}"#
        let rsaFactor =
            try JSONValue.parse(publicKey).objectValue.map { object -> String in
                var members = object
                members["p"] = "AQAB"
                return JSONValue.object(members).serializedString()
            } ?? ""
        let cases: [(name: String, text: String, reason: String)] = [
            ("private JWK", generated.standardOutput, "the JWK (kid \"leaked\") is a private key: it has d;"),
            (
                "set with a private key", #"{"keys":[\#(publicKey),\#(generated.standardOutput)]}"#,
                "key 2 (kid \"leaked\")"
            ),
            (
                "set with a secret key", #"{"keys":[\#(publicKey),\#(secret)]}"#,
                "is a secret (symmetric) key: it has k;"
            ),
            ("an RSA factor without d", #"{"keys":[\#(rsaFactor)]}"#, "it has p;"),
        ]
        for (index, item) in cases.enumerated() {
            let file = try TemporaryDirectory.shared.write(item.text, named: "jwks-private-\(index).json")
            let result = try await SignInSimBinary.run([
                "jwt", "verify", token, "--jwks", file, "--now", "999",
            ])
            #expect(result.status == 1, "\(item.name): \(result.standardError)")
            #expect(result.standardError.contains(item.reason), "\(item.name): \(result.standardError)")
            #expect(
                result.standardError.contains("a verification key set holds public keys only"),
                "\(item.name): \(result.standardError)")
        }
        let good = try TemporaryDirectory.shared.write(
            #"{"keys":[\#(publicKey)]}"#, named: "jwks-public.json")
        let verified = try await SignInSimBinary.run(["jwt", "verify", token, "--jwks", good, "--now", "999"])
        #expect(verified.status == 0, "\(verified.standardError)")
    }

    /// Bad input (not a key, not JSON, not a token) exits 1 with a clear message, never a crash.
    @Test("bad input is a clear error")
    func badInput() async throws {
        let notKey = try await SignInSimBinary.run(["jwk", "public"], input: "{\"kty\":\"EC\"}")
        #expect(notKey.status == 1)
        #expect(notKey.standardError.contains("not a usable JWK"))
        let notJSON = try await SignInSimBinary.run(["jwk", "public"], input: "\u{FF}garbage")
        #expect(notJSON.status == 1)
        let notToken = try await SignInSimBinary.run(["jwt", "decode", "a.b"])
        #expect(notToken.status == 1)
        #expect(notToken.standardError.contains("3 dot-separated parts"))
        let missingFile = try await SignInSimBinary.run(["jwt", "sign", "--key", "/nonexistent/key.json"])
        #expect(missingFile.status == 1)
        #expect(missingFile.standardError.contains("/nonexistent/key.json"))
        let badClaims = try await SignInSimBinary.run([
            "jwt", "sign", "--key", "/dev/null", "--claims", "[1]",
        ])
        #expect(badClaims.status == 64)
    }
}

@Suite("signinsim jwt verify against a served JWKS")
struct RemoteKeySetTests {
    /// `--jwks URL` fetches the key set over HTTP; a 404 or non-JSON answer is a clear failure.
    @Test("verify with --jwks URL")
    func remoteKeySet() async throws {
        let generated = try await SignInSimBinary.run([
            "jwk", "generate", "--alg", "ES256", "--kid", "served",
        ])
        let publicJWK = try await SignInSimBinary.run(["jwk", "public"], input: generated.standardOutput)
            .standardOutput
        let keyFile = try TemporaryDirectory.shared.write(generated.standardOutput, named: "served-key.json")
        let token = try await SignInSimBinary.run([
            "jwt", "sign", "--key", keyFile, "--claims", #"{"sub":"alice","exp":2000000000}"#,
        ]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        var router = Router()
        let set = #"{"keys":[\#(publicJWK)]}"#
        router.add(.get, "/.well-known/jwks.json") { _ in HTTPResponse(status: 200, body: Array(set.utf8)) }
        router.add(.get, "/html") { _ in .html("<p>maintenance</p>") }
        try await withTestServer(router: router) { server in
            let ok = try await SignInSimBinary.run([
                "jwt", "verify", token, "--jwks", server.baseURL + "/.well-known/jwks.json", "--now",
                "1900000000",
            ])
            #expect(ok.status == 0, "\(ok.standardError)")
            let missing = try await SignInSimBinary.run([
                "jwt", "verify", token, "--jwks", server.baseURL + "/nope",
            ])
            #expect(missing.status == 1)
            #expect(missing.standardError.contains("HTTP 404"))
            let html = try await SignInSimBinary.run([
                "jwt", "verify", token, "--jwks", server.baseURL + "/html",
            ])
            #expect(html.status == 1)
            #expect(html.standardError.contains("not JSON"))
        }
    }
}
