import Cryptography
import JOSE
import JSON
import Scenario
import Testing

@testable import ScenarioReports

/// JWTs are found where sign-in puts them, decoded, and verified only by a key of the run.
@Suite struct TokenInspectionTests {
    static func signed(_ claims: JSONValue, with jwk: JWK, header: [String: JSONValue] = [:]) throws -> String
    {
        try JWS.sign(payload: claims.serialized(), signer: try JWSSigner(jwk: jwk), extraHeader: header)
    }

    static func keySetExchange(_ keys: [JWK]) -> RecordedExchange {
        RecordedExchange(
            source: .app, startedAtMilliseconds: 0, method: "GET", url: "http://127.0.0.1/jwks", status: 200,
            responseBody: Array(JSONValue.object(["keys": .array(keys.map(\.json))]).serialized()))
    }

    static func tokenExchange(_ idToken: String) -> RecordedExchange {
        RecordedExchange(
            source: .app, startedAtMilliseconds: 0, method: "POST", url: "http://127.0.0.1/oauth/token",
            status: 200,
            responseBody: Array(
                #"{"id_token":"\#(idToken)","token_type":"Bearer","access_token":"opaque"}"#.utf8))
    }

    @Test func aTokenSignedByAKeyOfTheRunIsVerifiedAndDecoded() throws {
        let key = JWK(try P256PrivateKey(), keyID: "k1")
        let token = try Self.signed(["sub": "alice", "exp": 1_714_570_000, "iat": 1_714_566_400], with: key)
        let exchanges = [Self.keySetExchange([key.publicKey]), Self.tokenExchange(token)]
        let found = TokenInspection(keysFrom: exchanges).tokens(in: exchanges[1])
        #expect(found.count == 1)
        let first = try #require(found.first)
        #expect(first["where"]?.stringValue == "response JSON: id_token")
        #expect(first["claims"]?["sub"]?.stringValue == "alice")
        #expect(first["header"]?["kid"]?.stringValue == "k1")
        #expect(first["dates"]?["exp"]?.stringValue == "2024-05-01T13:26:40.000Z")
        #expect(first["verification"]?.stringValue == "verified with a key the run received (kid k1)")
    }

    /// The check that matters: a token whose signature no key of the run makes is not called
    /// verified, whether another key signed it or its signature was altered.
    @Test func aTokenNoKeyOfTheRunSignedIsNotVerified() throws {
        let key = JWK(try P256PrivateKey(), keyID: "k1")
        let stranger = JWK(try P256PrivateKey(), keyID: "k1")
        let forged = try Self.signed(["sub": "mallory"], with: stranger)
        var altered = try Self.signed(["sub": "alice"], with: key)
        altered = String(altered.dropLast(4)) + (altered.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        let inspection = TokenInspection(keysFrom: [Self.keySetExchange([key.publicKey])])
        for token in [forged, altered] {
            let verdict = inspection.tokens(in: Self.tokenExchange(token)).first?["verification"]?.stringValue
            #expect(verdict?.hasPrefix("not verified") == true, "\(verdict ?? "none")")
        }
        let none = TokenInspection(keysFrom: []).tokens(in: Self.tokenExchange(forged))
        #expect(none.first?["verification"]?.stringValue == "not checked: the run received no key set")
    }

    @Test func aDPoPProofIsCheckedWithTheKeyInItsHeader() throws {
        let key = JWK(try P256PrivateKey())
        let proof = try Self.signed(
            ["htm": "POST", "htu": "http://127.0.0.1/oauth/token", "iat": 1_714_566_400, "jti": "j1"],
            with: key,
            header: ["typ": "dpop+jwt", "jwk": key.publicKey.json])
        var exchange = Self.tokenExchange("x")
        exchange.requestHeaders = [HeaderField("DPoP", proof)]
        let found = TokenInspection(keysFrom: []).tokens(in: exchange)
        #expect(found.map { $0["where"]?.stringValue } == ["request header DPoP"])
        #expect(
            found.first?["verification"]?.stringValue == "verified with the public key in its header (jwk)")
    }

    @Test func tokensInURLsFormsAndHeadersAreFound() throws {
        let key = JWK(try P256PrivateKey(), keyID: "k")
        let token = try Self.signed(["sub": "a"], with: key)
        let exchange = RecordedExchange(
            source: .browser, startedAtMilliseconds: 0, method: "POST",
            url: "http://127.0.0.1/logout?id_token_hint=\(token)",
            requestHeaders: [HeaderField("Authorization", "Bearer \(token)")],
            requestBody: Array("subject_token=\(token)&other=plain.text.here".utf8), status: 302,
            responseHeaders: [HeaderField("Location", "com.example.app:/cb#id_token=\(token)&state=s")])
        let places = TokenInspection(keysFrom: []).tokens(in: exchange).compactMap {
            $0["where"]?.stringValue
        }
        #expect(
            places == [
                "request URL: id_token_hint", "request header Authorization (Bearer)",
                "request form: subject_token",
                "response Location: #id_token",
            ])
    }

    @Test func onlyCompactJWSWithAnAlgorithmCountAsJWTs() {
        #expect(!TokenInspection.looksLikeJWT("a.b.c"))
        #expect(!TokenInspection.looksLikeJWT("not-base64!.eyJhbGciOiJub25lIn0.e30"))
        #expect(!TokenInspection.looksLikeJWT("eyJ0eXAiOiJKV1QifQ.e30.c2lnbmF0dXJl"))  // no alg
        #expect(TokenInspection.looksLikeJWT("eyJhbGciOiJFUzI1NiJ9.e30.c2lnbmF0dXJl"))
    }
}
