import AppleID
import Clocks
import Cryptography
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

@Suite("Apple keys: /auth/keys, fixed key sets, rotation")
struct KeysTests {
    /// `/auth/keys` publishes three public RSA keys with kty, alg, use and kid; tokens verify against it.
    @Test("JWK Set and identity token verification with JOSE", arguments: Deployment.allCases)
    func keySet(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let response = try await fixture.get("/auth/keys")
            #expect(response.status == 200)
            let raw = try response.json()["keys"]?.arrayValue ?? []
            #expect(raw.count == 3)
            for key in raw {
                #expect(key["kty"] == "RSA")
                #expect(key["alg"] == "RS256")
                #expect(key["use"] == "sig")
                #expect(key["kid"]?.stringValue?.isEmpty == false)
                #expect(key["n"] != nil && key["e"] != nil)
                #expect(key["d"] == nil && key["p"] == nil)
            }
            let keys = try JWKSet.parse(response.body)
            #expect(Set(keys.keys.compactMap(\.keyID)).count == 3)
            let credential = try fixture.authorize()
            let verified = try JWT.verify(
                credential.identityToken, keys: JWKCollection(keys),
                validation: .idToken(
                    issuer: "https://appleid.apple.com", clientID: appA, nonce: nil, now: fixture.clock.now()),
                allowedAlgorithms: [.rs256])
            #expect(verified.claims.subject == credential.user)
            #expect(verified.keyID == fixture.provider.activeKeyID)
        }
    }

    /// `fixed(seed:)` is deterministic, differs across seeds, and parses the embedded keys once per process.
    @Test("fixed key sets by seed")
    func fixedKeySets() {
        let one = AppleKeySet.fixed(seed: 1)
        let again = AppleKeySet.fixed(seed: 1)
        #expect(one.publishedKeys.map(\.keyID) == again.publishedKeys.map(\.keyID))
        #expect(one.reserveKeys.map(\.keyID) == again.reserveKeys.map(\.keyID))
        #expect(one.publishedKeys[0].privateKey === again.publishedKeys[0].privateKey)
        #expect(one.publishedKeys.count == 3)
        #expect(one.reserveKeys.count == AppleKeySet.fixedKeyCount - 3)
        let all = Set((one.publishedKeys + one.reserveKeys).map(\.keyID))
        #expect(all.count == AppleKeySet.fixedKeyCount)
        let orders = Set(
            (0..<8).map {
                AppleKeySet.fixed(seed: $0, count: AppleKeySet.fixedKeyCount).publishedKeys.map(\.keyID)
            })
        #expect(orders.count > 1, "different seeds give different orders")
        #expect(one.activeKey.keyID.wholeMatch(of: /[A-Za-z0-9]{10}/) != nil)
        #expect(one.publicKeySet.keys.allSatisfy { !$0.isPrivate })
    }

    /// A rotated key signs new tokens that verify after re-fetching; the old key stays published for its period.
    @Test("key rotation", arguments: Deployment.allCases)
    func rotation(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let before = try await fixture.fetchKeys()
            let oldToken = try fixture.authorize().identityToken
            let oldKeyID = fixture.provider.activeKeyID

            let rotated = try await fixture.postJSON("/_admin/keys/rotate", [:])
            #expect(rotated.status == 200)
            let newKeyID = try #require(try rotated.json()["kid"]?.stringValue)
            #expect(newKeyID != oldKeyID)
            #expect(!before.keys.contains { $0.keyID == newKeyID })
            let newToken = try fixture.authorize().identityToken
            #expect(try headerOf(newToken)["kid"] == .string(newKeyID))

            let stale = #expect(throws: JOSEError.self) {
                try AppleIdentityToken.verify(
                    newToken, keys: before, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)
            }
            #expect(stale?.code == .unknownKey)
            let after = try await fixture.fetchKeys()
            #expect(after.keys.count == 4)
            #expect(after.keys.contains { $0.keyID == oldKeyID })
            _ = try AppleIdentityToken.verify(
                newToken, keys: after, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)
            _ = try AppleIdentityToken.verify(
                oldToken, keys: after, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)

            fixture.clock.advance(by: AppleConfiguration().retiredKeyPublicationPeriod)
            let later = try await fixture.fetchKeys()
            #expect(!later.keys.contains { $0.keyID == oldKeyID })
            #expect(later.keys.contains { $0.keyID == newKeyID })
            #expect(later.keys.count == 3)
        }
    }

    /// The fetcher re-fetches the JWKS once on an unknown kid, and no more than once for a bogus one.
    @Test("JWKS fetcher re-fetches once on an unknown kid", arguments: Deployment.allCases)
    func fetcher(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let fetcher = AppleKeyFetcher(
                transport: fixture.transport, keysURL: fixture.provider.url(AppleIDProvider.Path.keys))
            let first = try fixture.authorize().identityToken
            _ = try await fetcher.verify(
                first, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)
            #expect(fetcher.fetchCount == 1)
            _ = try await fetcher.verify(
                first, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)
            #expect(fetcher.fetchCount == 1, "a known kid needs no fetch")

            try fixture.provider.rotateKeys()
            let second = try fixture.authorize().identityToken
            let claims = try await fetcher.verify(
                second, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)
            #expect(claims.keyID == fixture.provider.activeKeyID)
            #expect(fetcher.fetchCount == 2)

            // A token under a kid nobody publishes: one re-fetch, then a typed failure.
            let forger = try JWSSigner(
                key: .rsa(testKeySet.reserveKeys.last!.privateKey), algorithm: .rs256, keyID: "not-published")
            let forged = try JWS.sign(payload: try claimsOf(second).serialized(), signer: forger)
            let error = await #expect(throws: AppleTokenError.self) {
                try await fetcher.verify(
                    forged, audience: appA, now: fixture.clock.now(), expectedNonceHash: nil)
            }
            #expect(error?.code == .invalidIdentityToken)
            #expect(error?.tokenError?.code == .unknownKey)
            #expect(fetcher.fetchCount == 3)
        }
    }

    /// `generate(count:)` makes distinct fresh keys whose tokens verify.
    @Test("generated key sets")
    func generated() throws {
        let keySet = try AppleKeySet.generate(count: 2)
        #expect(keySet.publishedKeys.count == 2)
        #expect(keySet.publishedKeys[0].keyID != keySet.publishedKeys[1].keyID)
        let clock = ManualWallClock(now: testEpoch)
        let provider = AppleIDProvider(
            baseURL: "https://appleid.test", clock: clock, random: SeededRandom(seed: 5), keySet: keySet)
        let credential = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA))
        let claims = try AppleIdentityToken.verify(
            credential.identityToken, keys: keySet.publicKeySet, audience: appA, now: clock.now(),
            expectedNonceHash: nil)
        #expect(claims.keyID == keySet.activeKey.keyID)
    }
}
