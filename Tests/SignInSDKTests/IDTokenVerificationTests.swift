import Cryptography
import JOSE
import JSON
import SignInSDK
import Testing

/// Each ID token check of docs/sdk.md (OpenID Connect Core §3.1.3.7), through a whole
/// sign-in: a token failing it leaves nothing stored.
@Suite struct IDTokenVerificationTests {
    func signIn(
        profile: BehaviorProfile = .default, issuer: FakeIssuer = FakeIssuer(), leeway: Int64? = nil,
        _ tamper: (inout FakeIssuer.State) -> Void
    ) async throws -> (SignInError?, SDKHarness) {
        let harness = try await SDKHarness(issuer: issuer, profile: profile, leeway: leeway).configured()
        harness.issuer.update(tamper)
        let error = await capture { try await harness.client.signIn() }
        if error != nil { #expect(harness.storage.keys.isEmpty) }
        return (error, harness)
    }

    /// A valid token passes (the baseline every other case changes one thing of).
    @Test func validTokenPasses() async throws {
        let (error, _) = try await signIn { _ in }
        #expect(error == nil)
    }

    /// `alg: none` is refused.
    @Test func unsecuredTokenIsRefused() async throws {
        let (error, _) = try await signIn { $0.headerOverrides["alg"] = "none" }
        #expect(error?.code == .idTokenInvalid)
    }

    /// HS256 (an HMAC keyed with the public key) is refused.
    @Test func hmacTokenIsRefused() async throws {
        let (error, _) = try await signIn { $0.headerOverrides["alg"] = "HS256" }
        #expect(error?.code == .idTokenInvalid)
        #expect(error?.message.contains("algorithm") == true)
    }

    /// A token signed by a key the JWKS does not hold is refused after one re-fetch.
    @Test func unknownKeyIsRefusedAfterOneRefetch() async throws {
        let (error, harness) = try await signIn { $0.signingKeyID = "k2" }
        #expect(error?.code == .idTokenInvalid)
        #expect(harness.issuer.count("jwks") == 2)
    }

    /// A rotated key is found by the one re-fetch.
    @Test func rotatedKeyIsFoundByRefetch() async throws {
        let harness = try await SDKHarness().configured()
        _ = try await harness.client.signIn()
        harness.issuer.update {
            $0.keys = ["k1", "k2"]
            $0.signingKeyID = "k2"
        }
        _ = try await harness.client.signIn()
        #expect(harness.issuer.count("jwks") == 2)
    }

    /// A signature that does not verify is refused: a genuine header and signature around
    /// another genuine payload.
    @Test func badSignatureIsRefused() throws {
        let issuer = FakeIssuer()
        let genuine = issuer.tokens(nonce: "n", withRefreshToken: false)["id_token"]!.stringValue!
        let other = issuer.tokens(nonce: "m", withRefreshToken: false)["id_token"]!.stringValue!
        let parts = genuine.split(separator: ".")
        let forged = [parts[0], other.split(separator: ".")[1], parts[2]].joined(separator: ".")
        let verifier = IDTokenVerifier(issuer: issuer.issuer, clientID: "com.example.app")
        let keys = JWKCollection(keys: [JWK(issuer.signingKeys["k1"]!.publicKey, keyID: "k1")])
        _ = try verifier.verify(other, keys: keys, nonce: "m", now: issuer.clock.now())
        #expect(throws: JOSEError.self) {
            _ = try verifier.verify(forged, keys: keys, nonce: "m", now: issuer.clock.now())
        }
    }

    /// Another `iss` is refused.
    @Test func otherIssuerIsRefused() async throws {
        let (error, _) = try await signIn { $0.claimOverrides["iss"] = "https://evil.test/" }
        #expect(error?.code == .idTokenInvalid)
    }

    /// Field bug 15: `iss` without the configured trailing slash passes, unless compared exactly.
    @Test(arguments: [false, true]) func trailingSlash(faulty: Bool) async throws {
        let (error, _) = try await signIn(
            profile: faulty ? BehaviorProfile(faults: [.exactIssuerMatch]) : .default
        ) {
            $0.claimOverrides["iss"] = "https://issuer.test"
        }
        #expect((error?.code == .idTokenInvalid) == faulty)
    }

    /// An audience without this client is refused.
    @Test func otherAudienceIsRefused() async throws {
        let (error, _) = try await signIn { $0.claimOverrides["aud"] = "com.other.app" }
        #expect(error?.code == .idTokenInvalid)
    }

    /// Several audiences need `azp` naming this client.
    @Test func severalAudiencesNeedAuthorizedParty() async throws {
        let (missing, _) = try await signIn { $0.claimOverrides["aud"] = ["com.example.app", "api"] }
        #expect(missing?.code == .idTokenInvalid)
        let (wrong, _) = try await signIn {
            $0.claimOverrides["aud"] = ["com.example.app", "api"]
            $0.claimOverrides["azp"] = "api"
        }
        #expect(wrong?.code == .idTokenInvalid)
        let (right, _) = try await signIn {
            $0.claimOverrides["aud"] = ["com.example.app", "api"]
            $0.claimOverrides["azp"] = "com.example.app"
        }
        #expect(right == nil)
    }

    /// An expired token is refused beyond the leeway and accepted within it.
    @Test func expiryHonoursTheLeeway() async throws {
        let now = FakeIssuer().clock.now()
        let (outside, _) = try await signIn { $0.claimOverrides["exp"] = .int(now - 61) }
        #expect(outside?.code == .idTokenInvalid)
        let (inside, _) = try await signIn { $0.claimOverrides["exp"] = .int(now - 30) }
        #expect(inside == nil)
    }

    /// Field bug 9: `iat` 5 minutes ahead (device clock behind) passes with AppAuth's 600 s, not strictly.
    @Test(arguments: [false, true]) func issuedAtInTheFuture(faulty: Bool) async throws {
        let now = FakeIssuer().clock.now()
        let (error, _) = try await signIn(
            profile: faulty ? BehaviorProfile(faults: [.strictClock]) : .default
        ) {
            $0.claimOverrides["iat"] = .int(now + 300)
        }
        #expect((error?.code == .idTokenInvalid) == faulty)
        let (farFuture, _) = try await signIn { $0.claimOverrides["iat"] = .int(now + 601) }
        #expect(farFuture?.code == .idTokenInvalid)
    }

    /// Another `nonce`, or none, is refused.
    @Test func nonceMustMatch() async throws {
        let (other, _) = try await signIn { $0.claimOverrides["nonce"] = "replayed" }
        #expect(other?.code == .idTokenInvalid)
        let (missing, _) = try await signIn { $0.claimOverrides["nonce"] = .null }
        #expect(missing?.code == .idTokenInvalid)
    }

    /// A token that is not three parts is refused.
    @Test func malformedTokenIsRefused() throws {
        let verifier = IDTokenVerifier(issuer: "https://i", clientID: "c")
        #expect(throws: JOSEError.self) {
            _ = try verifier.verify("a.b", keys: JWKCollection(keys: []), nonce: nil, now: 0)
        }
    }
}
