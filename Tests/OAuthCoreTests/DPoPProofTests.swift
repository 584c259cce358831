import Cryptography
import JOSE
import JSON
import OAuthCore
import Testing

@Suite("DPoP proofs (RFC 9449 §4)")
struct DPoPProofTests {
    static let signer = try! JWSSigner(
        key: .p256(try! P256PrivateKey()), algorithm: .es256, keyID: "device-key")
    static let now: Int64 = 1_800_000_000

    static func make(
        url: String = "https://as.example/token?x=1#f", accessToken: String? = nil, nonce: String? = nil
    )
        throws -> String
    {
        try DPoPProof.make(
            signer: signer, method: "POST", url: url, accessToken: accessToken, nonce: nonce, issuedAt: now,
            id: "id-1")
    }

    /// A built proof parses back: typ, alg, a public-only jwk without kid, and the claims, with
    /// htu stripped of query and fragment.
    @Test("make and parse")
    func roundTrip() throws {
        let compact = try Self.make(accessToken: "token", nonce: "n-1")
        let (header, claims) = try JWT.decodeUnverified(compact)
        #expect(header["typ"] == "dpop+jwt")
        #expect(header["alg"] == "ES256")
        #expect(header["kid"] == nil)
        #expect(Set(header["jwk"]?.objectValue?.keys.map { $0 } ?? []) == ["kty", "crv", "x", "y"])
        #expect(claims["htu"] == "https://as.example/token")

        let proof = try DPoPProof.parse(compact)
        #expect(proof.algorithm == .es256)
        #expect(proof.thumbprint == (try Self.signer.publicJWK.thumbprint()))
        #expect(proof.id == "id-1")
        #expect(proof.method == "POST")
        #expect(proof.issuedAt == Self.now)
        #expect(proof.nonce == "n-1")
        #expect(proof.accessTokenHash == DPoPProof.accessTokenHash(for: "token"))
    }

    /// RFC 9449 §7.1's example: the ath of its access token.
    @Test("ath of the RFC example")
    func accessTokenHash() {
        #expect(
            DPoPProof.accessTokenHash(for: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
                == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    /// check() compares htm, htu (normalised), iat within the window and ath.
    @Test("request checks")
    func checks() throws {
        let proof = try DPoPProof.parse(try Self.make(accessToken: "token"))
        let url = ["HTTPS://AS.EXAMPLE:443/token"]
        try proof.check(method: "POST", urls: url, now: Self.now + 60, window: 60, accessToken: "token")
        try proof.check(method: "POST", urls: url, now: Self.now - 60, window: 60, accessToken: nil)
        let failures: [(String, () throws(OAuthError) -> Void)] = [
            (
                "htm",
                { () throws(OAuthError) in
                    try proof.check(method: "GET", urls: url, now: Self.now, window: 60, accessToken: nil)
                }
            ),
            (
                "htu",
                { () throws(OAuthError) in
                    try proof.check(
                        method: "POST", urls: ["https://as.example/other"], now: Self.now, window: 60,
                        accessToken: nil)
                }
            ),
            (
                "port",
                { () throws(OAuthError) in
                    try proof.check(
                        method: "POST", urls: ["https://as.example:8443/token"], now: Self.now, window: 60,
                        accessToken: nil)
                }
            ),
            (
                "stale",
                { () throws(OAuthError) in
                    try proof.check(
                        method: "POST", urls: url, now: Self.now + 61, window: 60, accessToken: nil)
                }
            ),
            (
                "future",
                { () throws(OAuthError) in
                    try proof.check(
                        method: "POST", urls: url, now: Self.now - 61, window: 60, accessToken: nil)
                }
            ),
            (
                "ath",
                { () throws(OAuthError) in
                    try proof.check(
                        method: "POST", urls: url, now: Self.now, window: 60, accessToken: "other")
                }
            ),
        ]
        for (name, check) in failures {
            #expect(throws: OAuthError.self, "\(name)") { try check() }
            do {
                try check()
            } catch {
                #expect(error.code == "invalid_dpop_proof", "\(name)")
            }
        }
        let withoutHash = try DPoPProof.parse(try Self.make())
        #expect(throws: OAuthError.self) {
            try withoutHash.check(method: "POST", urls: url, now: Self.now, window: 60, accessToken: "token")
        }
    }

    /// parse() refuses a wrong typ, a private jwk, alg none and a bad signature.
    @Test("parse refusals")
    func refusals() throws {
        let good = try Self.make()
        let parts = good.split(separator: ".").map(String.init)
        func reheader(_ header: JSONValue) -> String {
            Base64URL.encode(header.serialized()) + "." + parts[1] + "." + parts[2]
        }
        guard case .p256(let privateKey) = Self.signer.key else { return }
        let publicJWK = try JSONValue.parse(Self.signer.publicJWK.thumbprintInput())
        let cases: [(String, String)] = [
            ("typ", reheader(["typ": "JWT", "alg": "ES256", "jwk": publicJWK])),
            ("private", reheader(["typ": "dpop+jwt", "alg": "ES256", "jwk": JWK(privateKey).json])),
            ("none", reheader(["typ": "dpop+jwt", "alg": "none", "jwk": publicJWK])),
            (
                "signature",
                parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 7, count: 64))
            ),
            ("empty", ""),
            ("shape", "a.b"),
        ]
        for (name, compact) in cases {
            do {
                _ = try DPoPProof.parse(compact)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.code == "invalid_dpop_proof", "\(name)")
            }
        }
    }

    /// htu normalisation: scheme and host lowercased, default ports dropped, query and fragment
    /// removed, empty path as /; only absolute http(s) URLs.
    @Test("normalised URLs")
    func normalizedURLs() {
        #expect(
            DPoPProof.normalizedURL("HTTPS://Server.Example.COM:443/token?x#y")
                == "https://server.example.com/token")
        #expect(DPoPProof.normalizedURL("http://a.example:8080") == "http://a.example:8080/")
        #expect(DPoPProof.normalizedURL("http://a.example:80/Path") == "http://a.example/Path")
        #expect(DPoPProof.normalizedURL("ftp://a.example/x") == nil)
        #expect(DPoPProof.normalizedURL("/token") == nil)
    }
}
