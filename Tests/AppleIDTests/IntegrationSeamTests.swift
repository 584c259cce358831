import AppleID
import Clocks
import Cryptography
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

@Suite("Integration seam: AppleTokenClient, AppleIdentityToken, AppleKeyFetcher")
struct IntegrationSeamTests {
    /// An issuer's path: redeem a native code, verify the id_token through the fetcher, refresh, revoke.
    @Test("token client round trip", arguments: Deployment.allCases)
    func roundTrip(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let raw = "raw-nonce"
            let credential = try fixture.authorize(nonce: AppleNonce.sha256Hex(raw))
            let client = fixture.tokenClient()
            let tokens = try await client.redeem(code: credential.authorizationCode, clientID: appA)
            #expect(tokens.tokenType == "Bearer")
            #expect(tokens.expiresIn == 3600)
            let refreshToken = try #require(tokens.refreshToken)
            let fetcher = AppleKeyFetcher(
                transport: fixture.transport, keysURL: fixture.provider.url(AppleIDProvider.Path.keys))
            let claims = try await fetcher.verify(
                tokens.idToken, audience: appA, now: fixture.clock.now(),
                expectedNonceHash: AppleNonce.sha256Hex(raw))
            #expect(claims.subject == credential.user)
            #expect(claims.email == "alice@example.com")
            #expect(claims.emailVerified == true)
            #expect(claims.isPrivateEmail == false)
            #expect(claims.realUserStatus == .likelyReal)

            let refreshed = try await client.refresh(refreshToken: refreshToken, clientID: appA)
            #expect(refreshed.refreshToken == nil)
            #expect(refreshed.accessToken != tokens.accessToken)

            try await client.revoke(token: refreshToken, clientID: appA, hint: .refreshToken)
            #expect(fixture.provider.credentialState(email: "alice@example.com", bundleID: appA) == .revoked)
            let dead = await #expect(throws: AppleTokenError.self) {
                try await client.refresh(refreshToken: refreshToken, clientID: appA)
            }
            #expect(dead?.appleErrorDescription == "The token has expired or has been revoked.")
        }
    }

    /// Apple's errors reach the caller typed, word for word; transport failures are told apart.
    @Test("token client errors", arguments: Deployment.allCases)
    func errors(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let client = fixture.tokenClient()
            let code = try fixture.authorize().authorizationCode
            _ = try await client.redeem(code: code, clientID: appA)
            let reused = await #expect(throws: AppleTokenError.self) {
                try await client.redeem(code: code, clientID: appA)
            }
            #expect(reused?.code == .rejected)
            #expect(reused?.status == 400)
            #expect(reused?.appleError == "invalid_grant")
            #expect(reused?.appleErrorDescription == "The code has already been used.")

            let wrongTeam = fixture.tokenClient(team: teamB)
            let refused = await #expect(throws: AppleTokenError.self) {
                try await wrongTeam.redeem(code: try fixture.authorize().authorizationCode, clientID: appA)
            }
            #expect(refused?.appleError == "invalid_client")
            #expect(refused?.appleErrorDescription == nil)

            let offline = AppleTokenClient(
                transport: ClosureTransport { _ throws(HTTPError) in
                    throw HTTPError(.connectionFailed, "refused")
                },
                baseURL: fixture.baseURL, teamID: teamA, keyID: keyA, privateKey: developerKeyA,
                clock: fixture.clock)
            let lost = await #expect(throws: AppleTokenError.self) {
                try await offline.redeem(code: "c", clientID: appA)
            }
            #expect(lost?.code == .transportFailed)
            #expect(lost?.transportError?.code == .connectionFailed)
        }
    }

    /// The client signs a fresh, valid secret for every call, with its clock's time.
    @Test("token client secrets")
    func secrets() throws {
        let clock = ManualWallClock(now: testEpoch)
        let client = AppleTokenClient(
            transport: ClosureTransport { _ throws(HTTPError) in HTTPResponse(status: 500) },
            baseURL: "https://appleid.test/", teamID: teamA, keyID: keyA, privateKey: developerKeyA,
            clock: clock)
        #expect(client.baseURL == "https://appleid.test")
        clock.advance(by: 7)
        let claims = try claimsOf(try client.clientSecret(for: appA))
        #expect(claims["iat"] == .int(testEpoch + 7))
        #expect(claims["exp"] == .int(testEpoch + 7 + 300))
        #expect(claims["sub"] == .string(appA))
    }

    /// `verify` refuses a wrong audience or nonce and an expired token; a token without the
    /// nonce expected is missing a claim.
    @Test("identity token verification failures")
    func verificationFailures() throws {
        let fixture = try VerificationFixture()
        #expect(fixture.failure(audience: appB) == .audienceMismatch)
        #expect(fixture.failure(nonce: "other") == .nonceMismatch)
        #expect(fixture.failure(at: fixture.now + 600) == .expired)
        #expect(fixture.failure(at: fixture.now + 599) == nil)
        let missingNonce = try fixture.provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA))
        #expect(fixture.failure(missingNonce.identityToken, nonce: "n-hash") == .missingClaim)
    }

    /// `verify` refuses another issuer (a trailing slash included), mistyped claims and another
    /// algorithm; `email_verified` and `is_private_email` may be strings.
    @Test("identity token verification of claims")
    func claimVerification() throws {
        let fixture = try VerificationFixture()
        #expect(
            fixture.failure(try fixture.resigned { $0["iss"] = "https://appleid.apple.com/" })
                == .issuerMismatch)
        #expect(
            fixture.failure(try fixture.resigned { $0["iss"] = "https://issuer.example" }) == .issuerMismatch)
        #expect(fixture.failure(try fixture.resigned { $0["email_verified"] = "yes" }) == .invalidClaim)
        #expect(fixture.failure(try fixture.resigned { $0["real_user_status"] = 5 }) == .invalidClaim)
        let strings = try fixture.resigned {
            $0["email_verified"] = "false"
            $0["is_private_email"] = "true"
        }
        let parsed = try AppleIdentityToken.verify(
            strings, keys: fixture.keys, audience: appA, now: fixture.now, expectedNonceHash: nil)
        #expect(parsed.emailVerified == false)
        #expect(parsed.isPrivateEmail == true)
        let signer = testKeySet.activeKey
        let ps256 = try fixture.resigned(
            { _ in },
            signer: try JWSSigner(key: .rsa(signer.privateKey), algorithm: .ps256, keyID: signer.keyID))
        #expect(fixture.failure(ps256) != nil)
    }
}

/// A provider that authorized Alice with nonce `n-hash`, her identity token, and ways to verify
/// tokens against its keys.
private struct VerificationFixture {
    let provider: AppleIDProvider
    let keys: JWKSet
    let token: String
    let now: Int64

    init() throws {
        let (provider, clock) = makeProvider()
        self.provider = provider
        keys = provider.publicKeySet
        token = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA, nonce: "n-hash")
        ).identityToken
        now = clock.now()
    }

    /// Why `verify` refuses a token (this one unless given), or nil when it accepts it.
    func failure(_ token: String? = nil, audience: String = appA, at time: Int64? = nil, nonce: String? = nil)
        -> JOSEError.Code?
    {
        do throws(JOSEError) {
            _ = try AppleIdentityToken.verify(
                token ?? self.token, keys: keys, audience: audience, now: time ?? now,
                expectedNonceHash: nonce)
            return nil
        } catch {
            return error.code
        }
    }

    /// The token with its claims changed, signed again (with the provider's key unless given).
    func resigned(_ change: (inout [String: JSONValue]) -> Void, signer: JWSSigner? = nil) throws -> String {
        let key = testKeySet.activeKey
        let signer = try signer ?? JWSSigner(key: .rsa(key.privateKey), algorithm: .rs256, keyID: key.keyID)
        var claims = try claimsOf(token).objectValue ?? [:]
        change(&claims)
        return try JWS.sign(payload: JSONValue.object(claims).serialized(), signer: signer)
    }
}
