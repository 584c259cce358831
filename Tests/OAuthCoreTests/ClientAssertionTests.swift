import Cryptography
import JOSE
import JSON
import OAuthCore
import Testing

@Suite("private_key_jwt client assertions (RFC 7523 §2.2, §3)")
struct ClientAssertionTests {
    static let clientKey = try! P256PrivateKey(random: SeededRandom(seed: 11))
    static let otherKey = try! P256PrivateKey(random: SeededRandom(seed: 12))
    static let signer = try! JWSSigner(key: .p256(clientKey), algorithm: .es256, keyID: "client-1")
    static let keys = JWKCollection(keys: [JWK(clientKey.publicKey, keyID: "client-1")])
    static let issuer = "https://issuer.test"
    static let tokenEndpoint = "https://issuer.test/oauth/token"
    static let now: Int64 = 1_800_000_000

    static func verify(_ assertion: String, clientID: String = "web", now: Int64 = now) throws(OAuthError)
        -> ClientAssertion
    {
        try ClientAssertion.verify(
            assertion, clientID: clientID, keys: keys, audiences: [issuer, tokenEndpoint], now: now)
    }

    /// Signs arbitrary claims with the client's key (or another), for the refusals.
    static func signed(_ claims: [String: JSONValue], key: P256PrivateKey = clientKey) throws -> String {
        let signer = try JWSSigner(key: .p256(key), algorithm: .es256, keyID: "client-1")
        return try JWS.sign(payload: JSONValue.object(claims).serialized(), signer: signer)
    }

    static func claims(
        aud: JSONValue = .string(issuer), exp: Int64 = now + 300, jti: String? = "id-1", iss: String = "web",
        sub: String = "web"
    ) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(iss), "sub": .string(sub), "aud": aud, "iat": .int(now), "exp": .int(exp),
        ]
        if let jti { claims["jti"] = .string(jti) }
        return claims
    }

    /// What `make` writes: iss = sub = the client, one aud, iat now, exp five minutes on, the
    /// jti given, the key's kid in the header; and it verifies.
    @Test("make writes the claims RFC 7523 and OpenID Connect Core §9 ask for")
    func make() throws {
        let assertion = try ClientAssertion.make(
            signer: Self.signer, clientID: "web", audience: Self.tokenEndpoint, issuedAt: Self.now,
            id: "jti-1")
        let (header, claims) = try JWT.decodeUnverified(assertion)
        #expect(header["kid"] == "client-1" && header["alg"] == "ES256")
        #expect(claims["iss"] == "web" && claims["sub"] == "web")
        #expect(claims["aud"] == .string(Self.tokenEndpoint))
        #expect(claims["iat"] == .int(Self.now) && claims["exp"] == .int(Self.now + 300))
        #expect(claims["jti"] == "jti-1")
        #expect(try ClientAssertion.claimedClient(assertion) == "web")
        let verified = try Self.verify(assertion)
        #expect(verified.clientID == "web" && verified.id == "jti-1" && verified.expiresAt == Self.now + 300)
    }

    /// A signature by another key, another client's id, an audience that is not this server's
    /// (or this server among others), an expired or far-future assertion, or one without jti
    /// are each refused with invalid_client and the reason.
    @Test(
        "refusals",
        arguments: [
            ("another key", "does not verify"),
            ("another client", "iss and sub"),
            ("sub differs", "iss and sub"),
            ("foreign aud", "aud must be"),
            ("several aud", "aud must be"),
            ("expired", "expired"),
            ("too long", "at most 3600"),
            ("no jti", "jti"),
        ])
    func refusals(case name: String, reason: String) throws {
        let assertion: String
        switch name {
        case "another key": assertion = try Self.signed(Self.claims(), key: Self.otherKey)
        case "another client": assertion = try Self.signed(Self.claims(iss: "mobile", sub: "mobile"))
        case "sub differs": assertion = try Self.signed(Self.claims(sub: "someone"))
        case "foreign aud": assertion = try Self.signed(Self.claims(aud: "https://elsewhere.test"))
        case "several aud":
            assertion = try Self.signed(Self.claims(aud: [.string(Self.issuer), "https://elsewhere.test"]))
        case "expired": assertion = try Self.signed(Self.claims(exp: Self.now - 61))
        case "too long": assertion = try Self.signed(Self.claims(exp: Self.now + 7200))
        default: assertion = try Self.signed(Self.claims(jti: nil))
        }
        do {
            _ = try Self.verify(assertion)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.code == "invalid_client" && error.status == 401)
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    /// The unverified read that finds the client refuses a sub that is not the iss, and text
    /// that is no JWT.
    @Test("claimedClient")
    func claimedClient() throws {
        #expect(throws: OAuthError.self) {
            try ClientAssertion.claimedClient(try Self.signed(Self.claims(sub: "x")))
        }
        #expect(throws: OAuthError.self) { try ClientAssertion.claimedClient("not a jwt") }
        #expect(throws: OAuthError.self) { try ClientAssertion.claimedClient("") }
    }

    /// An unsecured (alg none) assertion never verifies.
    @Test("alg none is refused")
    func unsecured() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        let payload = Base64URL.encode(JSONValue.object(Self.claims()).serialized())
        #expect(throws: OAuthError.self) { try Self.verify("\(header).\(payload).") }
    }
}
