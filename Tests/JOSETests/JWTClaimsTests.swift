import Cryptography
import JOSE
import JSON
import Testing

@Suite("JWT claims")
struct JWTClaimsTests {
    static let now: Int64 = 1_700_000_000

    static func claims(_ adjust: (inout JWTClaims) -> Void = { _ in }) -> JWTClaims {
        var claims = JWTClaims(
            issuer: "https://issuer.example/", subject: "alice", audience: .single("com.example.app"),
            expiresAt: now + 300, issuedAt: now, nonce: "n-0S6_WzA2Mj")
        adjust(&claims)
        return claims
    }

    static let validation = JWTValidation.idToken(
        issuer: "https://issuer.example", clientID: "com.example.app", nonce: "n-0S6_WzA2Mj", now: now,
        leeway: 60)

    /// Issue 27: a leeway, a tolerance or a time at the ends of Int64 overflowed `exp + leeway`,
    /// `now + leeway` and `now - tolerance` and trapped. The sums saturate instead: the window
    /// is as wide as it can be, and a token outside it is still refused.
    @Test("extreme times and leeways saturate instead of trapping")
    func extremeTimes() throws {
        var widest = JWTClaimsTests.validation
        widest.leeway = .max
        try JWTClaimsTests.claims().validate(widest)
        try JWTClaimsTests.claims { $0.notBefore = JWTClaimsTests.now + 3_600 }.validate(widest)

        var earliest = JWTClaimsTests.validation
        earliest.now = .min
        earliest.leeway = 1
        earliest.issuedAtPastTolerance = .max
        let early = try #require(throws: JOSEError.self) { try JWTClaimsTests.claims().validate(earliest) }
        #expect(early.code == .issuedInFuture)

        var latest = JWTClaimsTests.validation
        latest.now = .max
        latest.leeway = .max
        latest.issuedAtFutureTolerance = .max
        latest.issuedAtPastTolerance = .max
        let late = try #require(throws: JOSEError.self) { try JWTClaimsTests.claims().validate(latest) }
        #expect(late.code == .expired)

        var ancient = JWTClaimsTests.validation
        ancient.now = .min + 10
        ancient.leeway = 0
        ancient.issuedAtPastTolerance = .max
        try JWTClaimsTests.claims {
            $0.issuedAt = .min
            $0.expiresAt = .max
        }.validate(ancient)
    }

    /// A well-formed ID token passes every check.
    @Test("valid claims pass")
    func valid() throws {
        try JWTClaimsTests.claims().validate(JWTClaimsTests.validation)
    }

    /// `exp` is mandatory and checked with the leeway on the boundary.
    @Test("exp is required and enforced with leeway")
    func expiry() throws {
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.expiresAt = nil }.validate(JWTClaimsTests.validation)
        }
        // Expired 59 s ago: inside the 60 s leeway.
        try JWTClaimsTests.claims { $0.expiresAt = JWTClaimsTests.now - 59 }.validate(
            JWTClaimsTests.validation)
        expectJOSEError(.expired) {
            try JWTClaimsTests.claims { $0.expiresAt = JWTClaimsTests.now - 60 }.validate(
                JWTClaimsTests.validation)
        }
        var strict = JWTClaimsTests.validation
        strict.leeway = 0
        expectJOSEError(.expired) {
            try JWTClaimsTests.claims { $0.expiresAt = JWTClaimsTests.now }.validate(strict)
        }
    }

    /// `nbf` in the future beyond the leeway is refused.
    @Test("nbf")
    func notBefore() throws {
        try JWTClaimsTests.claims { $0.notBefore = JWTClaimsTests.now + 60 }.validate(
            JWTClaimsTests.validation)
        expectJOSEError(.notYetValid) {
            try JWTClaimsTests.claims { $0.notBefore = JWTClaimsTests.now + 61 }.validate(
                JWTClaimsTests.validation)
        }
    }

    /// `iat` in the future is refused beyond the tolerance; AppAuth's 600 s tolerance is expressible.
    @Test("iat in the future and missing iat")
    func issuedAt() throws {
        expectJOSEError(.issuedInFuture) {
            try JWTClaimsTests.claims { $0.issuedAt = JWTClaimsTests.now + 61 }.validate(
                JWTClaimsTests.validation)
        }
        var appAuth = JWTClaimsTests.validation
        appAuth.issuedAtFutureTolerance = 600
        try JWTClaimsTests.claims { $0.issuedAt = JWTClaimsTests.now + 599 }.validate(appAuth)
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.issuedAt = nil }.validate(JWTClaimsTests.validation)
        }
    }

    /// `iat` in the past is only bounded when asked (AppAuth-iOS refuses one more than 600 s
    /// before now), on the second.
    @Test("iat in the past")
    func issuedAtPast() throws {
        try JWTClaimsTests.claims { $0.issuedAt = JWTClaimsTests.now - 86_400 }.validate(
            JWTClaimsTests.validation)
        var appAuth = JWTClaimsTests.validation
        appAuth.issuedAtPastTolerance = 600
        try JWTClaimsTests.claims { $0.issuedAt = JWTClaimsTests.now - 600 }.validate(appAuth)
        expectJOSEError(.issuedTooLongAgo) {
            try JWTClaimsTests.claims { $0.issuedAt = JWTClaimsTests.now - 601 }.validate(appAuth)
        }
    }

    /// `iss` must match, trailing slashes aside (field bug 15), and must be present.
    @Test("issuer")
    func issuer() throws {
        try JWTClaimsTests.claims { $0.issuer = "https://issuer.example" }.validate(JWTClaimsTests.validation)
        expectJOSEError(.issuerMismatch) {
            try JWTClaimsTests.claims { $0.issuer = "https://evil.example/" }.validate(
                JWTClaimsTests.validation)
        }
        expectJOSEError(.issuerMismatch) {
            try JWTClaimsTests.claims { $0.issuer = "http://issuer.example/" }.validate(
                JWTClaimsTests.validation)
        }
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.issuer = nil }.validate(JWTClaimsTests.validation)
        }
    }

    /// `aud` as a string or array must contain the client; several audiences need `azp` = client.
    @Test("audience and azp")
    func audience() throws {
        expectJOSEError(.audienceMismatch) {
            try JWTClaimsTests.claims { $0.audience = .single("other") }.validate(JWTClaimsTests.validation)
        }
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.audience = nil }.validate(JWTClaimsTests.validation)
        }
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.audience = .multiple(["com.example.app", "api"]) }.validate(
                JWTClaimsTests.validation)
        }
        try JWTClaimsTests.claims {
            $0.audience = .multiple(["com.example.app", "api"])
            $0.authorizedParty = "com.example.app"
        }.validate(JWTClaimsTests.validation)
        expectJOSEError(.authorizedPartyMismatch) {
            try JWTClaimsTests.claims { $0.authorizedParty = "someone-else" }.validate(
                JWTClaimsTests.validation)
        }
        try JWTClaimsTests.claims { $0.audience = .multiple(["com.example.app"]) }.validate(
            JWTClaimsTests.validation)
    }

    /// The nonce must be present and equal to the one sent (rp-nonce-invalid).
    @Test("nonce")
    func nonce() throws {
        expectJOSEError(.nonceMismatch) {
            try JWTClaimsTests.claims { $0.nonce = "other" }.validate(JWTClaimsTests.validation)
        }
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.nonce = nil }.validate(JWTClaimsTests.validation)
        }
    }

    /// An ID token without `sub` is refused (rp-id_token-sub).
    @Test("sub is required in ID tokens")
    func subject() {
        expectJOSEError(.missingClaim) {
            try JWTClaimsTests.claims { $0.subject = nil }.validate(JWTClaimsTests.validation)
        }
    }

    /// Registered claims of the wrong JSON type are invalid.
    @Test(
        "claim types",
        arguments: [
            #"{"exp":"soon"}"#, #"{"iss":1}"#, #"{"aud":[1]}"#, #"{"aud":{}}"#, #"{"nbf":true}"#,
            #"{"nonce":[]}"#,
        ])
    func claimTypes(text: String) throws {
        let members = try JSONValue.parseObject(Array(text.utf8))
        expectJOSEError(.invalidClaim) { _ = try JWTClaims(json: members) }
    }

    /// `JWT.verify` checks the signature before the claims, then the claims.
    @Test("JWT sign and verify end to end")
    func endToEnd() throws {
        let jwk = JWK(try P256PrivateKey(), keyID: "k")
        let token = try JWT.sign(JWTClaimsTests.claims(), signer: try JWSSigner(jwk: jwk))
        let keys = JWKCollection(keys: [jwk.publicKey])
        let verified = try JWT.verify(token, keys: keys, validation: JWTClaimsTests.validation)
        #expect(verified.claims.subject == "alice")
        #expect(verified.header.type == "JWT")
        #expect(verified.keyID == "k")
        var late = JWTClaimsTests.validation
        late.now += 3600
        expectJOSEError(.expired) { _ = try JWT.verify(token, keys: keys, validation: late) }
    }
}
