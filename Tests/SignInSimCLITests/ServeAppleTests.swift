import Foundation
import HTTPClient
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

/// `signinsim serve` hosts the simulated Sign in with Apple under `/apple`, and its issuer
/// redeems the codes that Apple makes.
@Suite("signinsim serve: Sign in with Apple")
struct ServeAppleTests {
    static let transport = CurlTransport(cookieJar: nil)

    /// Starts serve and returns it with the issuer URL and the Apple URL of its first two lines.
    static func startServe(_ arguments: [String] = []) async throws -> (RunningProcess, String, String) {
        let (serve, issuer) = try await ServeTests.startServe(arguments)
        let deadline = ContinuousClock.now + .seconds(30)
        var lines: [Substring] = []
        while lines.count < 2, ContinuousClock.now < deadline {
            lines = serve.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if lines.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        }
        try #require(lines.count >= 2, "stdout: \(serve.standardOutput)")
        let prefix = "apple: "
        try #require(lines[1].hasPrefix(prefix), "second line: \(lines[1])")
        return (serve, issuer, String(lines[1].dropFirst(prefix.count)))
    }

    static func authorize(_ apple: String, email: String = "grace@example.com") async throws -> JSONValue {
        let response = try await transport.send(
            .json(
                .post, url: apple + "/_admin/authorize",
                body: [
                    "email": .string(email), "given_name": "Grace", "family_name": "Hopper",
                    "bundle_id": "com.example.app",
                ]))
        #expect(response.status == 200, "\(response.bodyText ?? "")")
        return try response.jsonBody()
    }

    static func exchange(_ issuer: String, code: String, userProfile: String? = nil) async throws
        -> HTTPResponse
    {
        var form: FormParameters = [
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "client_id": "com.example.app",
            "subject_token": .init(code),
            "subject_token_type": "http://auth0.com/oauth/token-type/apple-authz-code",
        ]
        if let userProfile { form["user_profile"] = .init(userProfile) }
        return try await transport.send(.form(url: issuer + "/oauth/token", parameters: form))
    }

    /// The second line is the Apple URL; its keys answer; an Apple code exchanges at the issuer
    /// over HTTP and creates the named user; the issuer's call to Apple is logged.
    @Test("serves Apple under /apple and exchanges its codes")
    func endToEnd() async throws {
        let (serve, issuer, apple) = try await Self.startServe()
        #expect(apple == issuer + "/apple")
        #expect(apple.hasPrefix("http://127.0.0.1:"))

        let keys = try JWKSet.parse(
            try await Self.transport.send(HTTPRequest(url: apple + "/auth/keys")).body)
        #expect(keys.keys.count >= 2)
        #expect(keys.keys.allSatisfy { $0.keyType == .rsa })

        let credential = try await Self.authorize(apple)
        #expect(credential["full_name"]?["given_name"] == "Grace")
        let code = try #require(credential["authorization_code"]?.stringValue)
        let user = try #require(credential["user"]?.stringValue)
        let response = try await Self.exchange(
            issuer, code: code, userProfile: #"{"name":{"firstName":"Grace","lastName":"Hopper"}}"#)
        #expect(response.status == 200, "\(response.bodyText ?? "")")
        let idToken = try JWT.decodeUnverified(
            try #require(try response.jsonBody()["id_token"]?.stringValue)
        ).claims
        #expect(idToken["sub"] == .string("apple|" + user))
        #expect(idToken["name"] == "Grace Hopper")
        _ = try await serve.standardErrorLine(containing: "POST /apple/auth/token 200 ")
        _ = try await serve.standardErrorLine(containing: "GET /apple/auth/keys 200 ")
        _ = try await serve.standardErrorLine(containing: "POST /oauth/token 200 ")

        let reused = try await Self.exchange(issuer, code: code)
        #expect(reused.status == 403)
        #expect(try reused.jsonBody()["error"] == "invalid_grant")

        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }

    /// One clock: `/_admin/clock` on the issuer ages Apple's codes too.
    @Test("/_admin/clock moves Apple's clock")
    func sharedClock() async throws {
        let (serve, issuer, apple) = try await Self.startServe()
        let credential = try await Self.authorize(apple)
        let code = try #require(credential["authorization_code"]?.stringValue)
        let moved = try await Self.transport.send(
            .json(.post, url: issuer + "/_admin/clock", body: ["advance": 301]))
        #expect(moved.status == 200)
        let response = try await Self.exchange(issuer, code: code)
        #expect(response.status == 403, "\(response.bodyText ?? "")")
        let body = try response.jsonBody()
        #expect(body["error"] == "invalid_grant")
        #expect(
            body["error_description"]?.stringValue?.contains("The code has expired or has been revoked.")
                == true)

        serve.send(SIGTERM)
        #expect(try await serve.waitForExit().isCleanExit)
    }

    /// `--seed` picks other test keys; the same seed the same keys.
    @Test("--seed picks Apple's keys")
    func seed() async throws {
        func keyIDs(_ arguments: [String]) async throws -> [String] {
            let (serve, _, apple) = try await Self.startServe(arguments)
            let keys = try JWKSet.parse(
                try await Self.transport.send(HTTPRequest(url: apple + "/auth/keys")).body)
            serve.send(SIGTERM)
            #expect(try await serve.waitForExit().isCleanExit)
            return keys.keys.compactMap(\.keyID)
        }
        let standard = try await keyIDs([])
        #expect(try await keyIDs(["--seed", "0"]) == standard)
        #expect(try await keyIDs(["--seed", "5"]) != standard)
    }
}
