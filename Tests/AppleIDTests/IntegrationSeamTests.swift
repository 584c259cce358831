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

    /// `verify` refuses a wrong audience, issuer, algorithm, nonce, an expired token and mistyped claims.
    @Test("identity token verification failures")
    func verificationFailures() throws {
        let (provider, clock) = makeProvider()
        let keys = provider.publicKeySet
        let credential = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA, nonce: "n-hash"))
        let token = credential.identityToken
        let now = clock.now()
        func code(_ body: () throws -> Void) -> JOSEError.Code? {
            do {
                try body()
                return nil
            } catch let error as JOSEError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    token, keys: keys, audience: appB, now: now, expectedNonceHash: nil)
            }
                == .audienceMismatch)
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    token, keys: keys, audience: appA, now: now, expectedNonceHash: "other")
            } == .nonceMismatch)
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    token, keys: keys, audience: appA, now: now + 600, expectedNonceHash: nil)
            } == .expired)
        _ = try AppleIdentityToken.verify(
            token, keys: keys, audience: appA, now: now + 599, expectedNonceHash: nil)

        let signer = testKeySet.activeKey
        let jwsSigner = try JWSSigner(key: .rsa(signer.privateKey), algorithm: .rs256, keyID: signer.keyID)
        func resigned(_ change: (inout [String: JSONValue]) -> Void, signer: JWSSigner = jwsSigner) throws
            -> String
        {
            var claims = try claimsOf(token).objectValue ?? [:]
            change(&claims)
            return try JWS.sign(payload: JSONValue.object(claims).serialized(), signer: signer)
        }
        let slashed = try resigned { $0["iss"] = "https://appleid.apple.com/" }
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    slashed, keys: keys, audience: appA, now: now, expectedNonceHash: nil)
            }
                == .issuerMismatch)
        let stranger = try resigned { $0["iss"] = "https://issuer.example" }
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    stranger, keys: keys, audience: appA, now: now, expectedNonceHash: nil)
            }
                == .issuerMismatch)
        let yes = try resigned { $0["email_verified"] = "yes" }
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    yes, keys: keys, audience: appA, now: now, expectedNonceHash: nil)
            }
                == .invalidClaim)
        let status = try resigned { $0["real_user_status"] = 5 }
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    status, keys: keys, audience: appA, now: now, expectedNonceHash: nil)
            }
                == .invalidClaim)
        let strings = try resigned {
            $0["email_verified"] = "false"
            $0["is_private_email"] = "true"
        }
        let parsed = try AppleIdentityToken.verify(
            strings, keys: keys, audience: appA, now: now, expectedNonceHash: nil)
        #expect(parsed.emailVerified == false)
        #expect(parsed.isPrivateEmail == true)
        let ps256 = try resigned(
            { _ in },
            signer: try JWSSigner(key: .rsa(signer.privateKey), algorithm: .ps256, keyID: signer.keyID))
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    ps256, keys: keys, audience: appA, now: now, expectedNonceHash: nil)
            }
                != nil)
        let missingNonce = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA))
        #expect(
            code {
                _ = try AppleIdentityToken.verify(
                    missingNonce.identityToken, keys: keys, audience: appA, now: now,
                    expectedNonceHash: "n-hash")
            } == .missingClaim)
    }
}
