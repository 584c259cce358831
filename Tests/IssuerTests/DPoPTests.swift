import Cryptography
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

/// One way a DPoP proof can be wrong; each must be refused with invalid_dpop_proof.
enum ProofDefect: String, CaseIterable, Sendable, CustomStringConvertible {
    case missingType, wrongType, algorithmNone, algorithmHS256, privateKey, missingKey, badSignature
    case wrongMethod, wrongURL, staleIssuedAt, futureIssuedAt, missingID, twoHeaders

    var description: String { rawValue }
}

/// Builds proofs with deliberate defects.
struct ProofForger {
    let key: DPoPKey
    let fixture: IssuerFixture

    var publicJWK: JSONValue { try! JSONValue.parse(key.signer.publicJWK.thumbprintInput()) }

    var claims: [String: JSONValue] {
        [
            "jti": .string(Base64URL.encode(SystemRandom().bytes(count: 12))), "htm": "POST",
            "htu": .string(fixture.baseURL + "/oauth/token"), "iat": .int(fixture.clock.now()),
        ]
    }

    func signed(header: [String: JSONValue], claims: [String: JSONValue]) throws -> String {
        try JWS.sign(payload: JSONValue.object(claims).serialized(), signer: key.signer, extraHeader: header)
    }

    func unsigned(header: [String: JSONValue], claims: [String: JSONValue], signature: [UInt8] = []) -> String
    {
        let input =
            Base64URL.encode(JSONValue.object(header).serialized()) + "."
            + Base64URL.encode(JSONValue.object(claims).serialized())
        return input + "." + Base64URL.encode(signature)
    }

    /// The DPoP header fields of a request with the defect.
    func headers(_ defect: ProofDefect) throws -> HTTPHeaders {
        let header: [String: JSONValue] = ["typ": "dpop+jwt", "jwk": publicJWK]
        var proof: String
        switch defect {
        case .missingType: proof = try signed(header: ["jwk": publicJWK], claims: claims)
        case .wrongType: proof = try signed(header: ["typ": "JWT", "jwk": publicJWK], claims: claims)
        case .algorithmNone:
            proof = unsigned(header: ["typ": "dpop+jwt", "alg": "none", "jwk": publicJWK], claims: claims)
        case .algorithmHS256:
            let hsHeader: [String: JSONValue] = ["typ": "dpop+jwt", "alg": "HS256", "jwk": publicJWK]
            let input =
                Base64URL.encode(JSONValue.object(hsHeader).serialized()) + "."
                + Base64URL.encode(JSONValue.object(claims).serialized())
            let mac = HMACSHA256.authenticationCode(for: Array(input.utf8), key: publicJWK.serialized())
            proof = input + "." + Base64URL.encode(mac)
        case .privateKey:
            guard case .p256(let privateKey) = key.signer.key else { throw TestFailure("ES256 key expected") }
            let withD = JWK(privateKey, algorithm: nil, use: nil).json
            proof = try signed(header: ["typ": "dpop+jwt", "jwk": withD], claims: claims)
        case .missingKey: proof = try signed(header: ["typ": "dpop+jwt"], claims: claims)
        case .badSignature:
            proof = try signed(header: header, claims: claims)
            let lastDot = proof.lastIndex(of: ".")!
            var signature = try Base64URL.decode(proof[proof.index(after: lastDot)...])
            signature[10] ^= 0x01
            proof = String(proof[...lastDot]) + Base64URL.encode(signature)
        case .wrongMethod:
            var wrong = claims
            wrong["htm"] = "GET"
            proof = try signed(header: header, claims: wrong)
        case .wrongURL:
            var wrong = claims
            wrong["htu"] = .string(fixture.baseURL + "/userinfo")
            proof = try signed(header: header, claims: wrong)
        case .staleIssuedAt:
            var wrong = claims
            wrong["iat"] = .int(fixture.clock.now() - 61)
            proof = try signed(header: header, claims: wrong)
        case .futureIssuedAt:
            var wrong = claims
            wrong["iat"] = .int(fixture.clock.now() + 61)
            proof = try signed(header: header, claims: wrong)
        case .missingID:
            var wrong = claims
            wrong["jti"] = nil
            proof = try signed(header: header, claims: wrong)
        case .twoHeaders:
            var fields = HTTPHeaders()
            fields.add(name: "DPoP", value: try key.proof(fixture))
            fields.add(name: "DPoP", value: try key.proof(fixture))
            return fields
        }
        return ["DPoP": proof]
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("DPoP at the token and userinfo endpoints (RFC 9449)")
struct DPoPTests {
    /// Each defective proof is refused with 400 invalid_dpop_proof and leaves the refresh token
    /// usable; the same request with a sound proof then succeeds.
    @Test("defective proofs are refused", arguments: Deployment.allCases, ProofDefect.allCases)
    func defects(deployment: Deployment, defect: ProofDefect) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let token = try #require(try await fixture.signIn().refreshToken)
            let forger = ProofForger(key: key, fixture: fixture)
            let refused = try await fixture.refresh(token, headers: try forger.headers(defect))
            expectError(refused, 400, "invalid_dpop_proof")
            let accepted = try await fixture.refresh(token, headers: ["DPoP": try key.proof(fixture)])
            #expect(accepted.status == 200, "\(accepted.bodyText ?? "")")
        }
    }

    /// A proof's jti is single use within the window.
    @Test("replayed jti", arguments: Deployment.allCases)
    func replayedID(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let proof = try key.proof(fixture)
            let first = try await fixture.refresh(
                try #require(try await fixture.signIn().refreshToken), headers: ["DPoP": proof])
            #expect(first.status == 200)
            let second = try await fixture.refresh(
                try #require(try await fixture.signIn().refreshToken), headers: ["DPoP": proof])
            expectError(second, 400, "invalid_dpop_proof")
            #expect(oauthErrorDescription(second).contains("jti"))
        }
    }

    /// iat may be up to the window (60 s) away either way; htu compares scheme and host without
    /// case and ignores the query; RS256 and PS256 keys work too.
    @Test("accepted variations", arguments: Deployment.allCases)
    func variations(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let now = fixture.clock.now()
            for issuedAt in [now - 60, now + 60] {
                let response = try await fixture.refresh(
                    try #require(try await fixture.signIn().refreshToken),
                    headers: ["DPoP": try key.proof(fixture, issuedAt: issuedAt)])
                #expect(response.status == 200, "iat \(issuedAt - now)")
            }
            // In process the issuer is http://issuer.test: the default port is spelled out too.
            let shouting =
                deployment == .inProcess ? "HTTP://ISSUER.TEST:80" : fixture.baseURL.uppercased()
            let proof = try DPoPProof.make(
                signer: key.signer, method: "POST", url: shouting + "/oauth/token?x=1#f", issuedAt: now,
                id: "shout")
            #expect(
                try await fixture.refresh(
                    try #require(try await fixture.signIn().refreshToken), headers: ["DPoP": proof]
                )
                .status == 200)
            for algorithm in [JWSAlgorithm.rs256, .ps256] {
                let rsa = try DPoPKey(algorithm: algorithm)
                let response = try await fixture.refresh(
                    try #require(try await fixture.signIn().refreshToken),
                    headers: ["DPoP": try rsa.proof(fixture)])
                #expect(response.status == 200, "\(algorithm)")
            }
        }
    }

    /// With a proof, tokens are DPoP-bound: token_type DPoP and cnf.jkt = the key's thumbprint.
    /// The public client's refresh token is bound to the key: no proof is invalid_dpop_proof,
    /// another key invalid_grant, the same key works.
    @Test("bound tokens and refresh binding", arguments: Deployment.allCases)
    func binding(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let signedIn = try await fixture.signIn(dpop: key)
            #expect(signedIn.body["token_type"] == "DPoP")
            #expect(try claims(of: signedIn.accessToken)["cnf"] == ["jkt": .string(key.thumbprint)])
            let refreshToken = try #require(signedIn.refreshToken)

            expectError(try await fixture.refresh(refreshToken), 400, "invalid_dpop_proof")
            let other = try DPoPKey()
            expectError(
                try await fixture.refresh(refreshToken, headers: ["DPoP": try other.proof(fixture)]), 400,
                "invalid_grant")
            let same = try await fixture.refresh(refreshToken, headers: ["DPoP": try key.proof(fixture)])
            #expect(same.status == 200)
            let refreshed = TokenSet(body: try same.jsonBody())
            #expect(refreshed.body["token_type"] == "DPoP")
            #expect(try claims(of: refreshed.accessToken)["cnf"] == ["jkt": .string(key.thumbprint)])
        }
    }

    /// A client registered for DPoP must send a proof.
    @Test("client that requires DPoP", arguments: Deployment.allCases)
    func requiredByClient(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let code = fixture.code(clientID: "bound", redirectURI: "com.example.bound://cb")
            let without = try await fixture.redeem(
                code, redirectURI: "com.example.bound://cb", clientID: "bound")
            expectError(without, 400, "invalid_dpop_proof")
            let key = try DPoPKey()
            let with = try await fixture.redeem(
                code, redirectURI: "com.example.bound://cb", clientID: "bound",
                headers: ["DPoP": try key.proof(fixture)])
            #expect(with.status == 200)
        }
    }

    /// A code bound with dpop_jkt needs a proof with that key.
    @Test("code bound to a key", arguments: Deployment.allCases)
    func boundCode(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let other = try DPoPKey()
            expectError(
                try await fixture.redeem(fixture.code(dpopKeyThumbprint: key.thumbprint)), 400,
                "invalid_dpop_proof")
            expectError(
                try await fixture.redeem(
                    fixture.code(dpopKeyThumbprint: key.thumbprint),
                    headers: ["DPoP": try other.proof(fixture)]),
                400, "invalid_grant")
            let good = try await fixture.redeem(
                fixture.code(dpopKeyThumbprint: key.thumbprint), headers: ["DPoP": try key.proof(fixture)])
            #expect(good.status == 200)
        }
    }

    /// With nonces required: a proof without one gets 400 use_dpop_nonce and a DPoP-Nonce, the
    /// retry with it succeeds (the code was not used up) and the success carries a nonce too.
    /// The previous nonce is accepted after a rotation, an older one is not.
    @Test("server nonce at the token endpoint", arguments: Deployment.allCases)
    func tokenNonce(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(requireDPoPNonce: true)) { fixture in
            let key = try DPoPKey()
            let code = fixture.code()
            let challenge = try await fixture.redeem(code, headers: ["DPoP": try key.proof(fixture)])
            expectError(challenge, 400, "use_dpop_nonce")
            let nonce = try #require(challenge.headers["DPoP-Nonce"])
            let retried = try await fixture.redeem(
                code, headers: ["DPoP": try key.proof(fixture, nonce: nonce)])
            #expect(retried.status == 200, "\(retried.bodyText ?? "")")
            #expect(retried.headers["DPoP-Nonce"] == nonce)
            let refreshToken = try #require(TokenSet(body: try retried.jsonBody()).refreshToken)

            let wrong = try await fixture.refresh(
                refreshToken, headers: ["DPoP": try key.proof(fixture, nonce: "made-up")])
            expectError(wrong, 400, "use_dpop_nonce")

            fixture.clock.advance(by: 61)
            let rotated = try await fixture.refresh(
                refreshToken, headers: ["DPoP": try key.proof(fixture, nonce: nonce)])
            #expect(rotated.status == 200)
            let newNonce = try #require(rotated.headers["DPoP-Nonce"])
            #expect(newNonce != nonce)
            let next = try #require(TokenSet(body: try rotated.jsonBody()).refreshToken)
            fixture.clock.advance(by: 61)
            let stale = try await fixture.refresh(
                next, headers: ["DPoP": try key.proof(fixture, nonce: nonce)])
            expectError(stale, 400, "use_dpop_nonce")
        }
    }

    /// With nonces required, the nonce judges a proof's age (RFC 9449 §4.3 check 11, §11.1):
    /// a proof from a device 9 minutes ahead or behind is accepted with a current nonce, while
    /// without nonces its `iat` is refused. After a quiet spell of two nonce lifetimes, the
    /// nonce handed out before is no longer current.
    @Test("a server nonce makes the proof's iat irrelevant", arguments: Deployment.allCases)
    func nonceJudgesTheAge(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(requireDPoPNonce: true)) { fixture in
            let key = try DPoPKey()
            let code = fixture.code()
            let skewed = fixture.clock.now() + 540
            let challenge = try await fixture.redeem(
                code, headers: ["DPoP": try key.proof(fixture, issuedAt: skewed)])
            expectError(challenge, 400, "use_dpop_nonce")
            let nonce = try #require(challenge.headers["DPoP-Nonce"])
            let accepted = try await fixture.redeem(
                code, headers: ["DPoP": try key.proof(fixture, nonce: nonce, issuedAt: skewed)])
            #expect(accepted.status == 200, "\(accepted.bodyText ?? "")")
            let refreshToken = try #require(TokenSet(body: try accepted.jsonBody()).refreshToken)
            let behind = try await fixture.refresh(
                refreshToken,
                headers: ["DPoP": try key.proof(fixture, nonce: nonce, issuedAt: fixture.clock.now() - 540)])
            #expect(behind.status == 200, "\(behind.bodyText ?? "")")
            let next = try #require(TokenSet(body: try behind.jsonBody()).refreshToken)

            fixture.clock.advance(by: 2 * 60)
            let stale = try await fixture.refresh(
                next, headers: ["DPoP": try key.proof(fixture, nonce: nonce)])
            expectError(stale, 400, "use_dpop_nonce")
        }
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let refused = try await fixture.redeem(
                fixture.code(), headers: ["DPoP": try key.proof(fixture, issuedAt: fixture.clock.now() + 540)]
            )
            expectError(refused, 400, "invalid_dpop_proof")
            #expect(refused.bodyText?.contains("more than 60 s from the server's time") == true)
        }
    }

    /// Every answer carries one `Date` of the issuer's clock (RFC 9110 §6.6.1), over loopback
    /// too (the listener adds none of its own), errors included: how a client learns the
    /// server's time.
    @Test("answers carry the issuer's Date", arguments: Deployment.allCases)
    func dateHeader(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            fixture.clock.advance(by: 12_345)
            let expected = HTTPDate.format(fixture.clock.now())
            let refused = try await fixture.redeem(
                fixture.code(), headers: ["DPoP": try DPoPKey().proof(fixture, issuedAt: 0)])
            expectError(refused, 400, "invalid_dpop_proof")
            #expect(refused.headers.values(for: "Date") == [expected])
            let issued = try await fixture.redeem(fixture.code())
            #expect(issued.status == 200)
            #expect(issued.headers.values(for: "Date") == [expected])
        }
    }

    /// At userinfo a bound token needs the DPoP scheme and a proof with ath and the same key;
    /// failures are 401 with a DPoP challenge; a bound token as Bearer and an unbound one as
    /// DPoP are invalid_token.
    @Test("DPoP at userinfo", arguments: Deployment.allCases)
    func userInfo(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant()) { fixture in
            let key = try DPoPKey()
            let bound = try await fixture.signIn(dpop: key).accessToken
            func proofHeaders(_ proof: String, token: String = bound) -> HTTPHeaders {
                ["Authorization": "DPoP \(token)", "DPoP": proof]
            }
            let ok = try await fixture.get(
                "/userinfo",
                headers: proofHeaders(
                    try key.proof(fixture, method: "GET", path: "/userinfo", accessToken: bound)))
            #expect(ok.status == 200, "\(ok.bodyText ?? "")")
            #expect(try ok.jsonBody()["sub"] == .string(aliceID))

            let noAth = try await fixture.get(
                "/userinfo", headers: proofHeaders(try key.proof(fixture, method: "GET", path: "/userinfo")))
            expectError(noAth, 401, "invalid_dpop_proof")
            #expect(noAth.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true)

            let wrongAth = try await fixture.get(
                "/userinfo",
                headers: proofHeaders(
                    try key.proof(fixture, method: "GET", path: "/userinfo", accessToken: "other")))
            expectError(wrongAth, 401, "invalid_dpop_proof")

            let other = try DPoPKey()
            let otherKey = try await fixture.get(
                "/userinfo",
                headers: proofHeaders(
                    try other.proof(fixture, method: "GET", path: "/userinfo", accessToken: bound)))
            expectError(otherKey, 401, "invalid_dpop_proof")

            let noProof = try await fixture.get("/userinfo", headers: ["Authorization": "DPoP \(bound)"])
            expectError(noProof, 401, "invalid_dpop_proof")

            let asBearer = try await fixture.userInfo(bearer: bound)
            expectError(asBearer, 401, "invalid_token")
            #expect(asBearer.headers["WWW-Authenticate"]?.hasPrefix("Bearer error=\"invalid_token\"") == true)

            let unbound = try await fixture.signIn().accessToken
            let unboundAsDPoP = try await fixture.get(
                "/userinfo",
                headers: proofHeaders(
                    try key.proof(fixture, method: "GET", path: "/userinfo", accessToken: unbound),
                    token: unbound))
            expectError(unboundAsDPoP, 401, "invalid_token")
            #expect(
                unboundAsDPoP.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_token\"") == true)
        }
    }

    /// With nonces required, userinfo answers 401 with DPoP error="use_dpop_nonce" and a nonce;
    /// the retry with it succeeds.
    @Test("server nonce at userinfo", arguments: Deployment.allCases)
    func userInfoNonce(deployment: Deployment) async throws {
        try await withIssuer(deployment, tenant: tokenTestTenant(requireDPoPNonce: true)) { fixture in
            let key = try DPoPKey()
            let code = fixture.code()
            let nonce = try #require(
                try await fixture.redeem(code, headers: ["DPoP": try key.proof(fixture)]).headers[
                    "DPoP-Nonce"])
            let token = TokenSet(
                body: try await fixture.redeem(code, headers: ["DPoP": try key.proof(fixture, nonce: nonce)])
                    .jsonBody()
            ).accessToken
            let headers: HTTPHeaders = [
                "Authorization": "DPoP \(token)",
                "DPoP": try key.proof(fixture, method: "GET", path: "/userinfo", accessToken: token),
            ]
            let challenge = try await fixture.get("/userinfo", headers: headers)
            expectError(challenge, 401, "use_dpop_nonce")
            #expect(challenge.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"use_dpop_nonce\"") == true)
            let fresh = try #require(challenge.headers["DPoP-Nonce"])
            let retried = try await fixture.get(
                "/userinfo",
                headers: [
                    "Authorization": "DPoP \(token)",
                    "DPoP": try key.proof(
                        fixture, method: "GET", path: "/userinfo", accessToken: token, nonce: fresh),
                ])
            #expect(retried.status == 200)
            #expect(retried.headers["DPoP-Nonce"] != nil)
        }
    }
}
