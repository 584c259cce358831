import AppleID
import Clocks
import Cryptography
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

/// Ways a client secret can be wrong, each refused with `invalid_client`.
enum SecretFault: String, CaseIterable, Sendable, CustomStringConvertible {
    case hs256Algorithm
    case rs256Algorithm
    case missingKeyID
    case unknownKeyID
    case unregisteredTeam
    case otherTeamsSecret
    case wrongSubject
    case wrongAudience
    case expired
    case issuedInFuture
    case missingIssuedAt
    case lifetimeTooLong
    case otherKeysSignature
    case garbage
    case unknownClient

    var description: String { rawValue }

    /// The start of the reason the provider gives in `X-SignInSim-Reason`.
    var expectedReason: String {
        switch self {
        case .hs256Algorithm: "client_secret alg is HS256; Apple requires ES256"
        case .rs256Algorithm: "client_secret alg is RS256; Apple requires ES256"
        case .missingKeyID: "client_secret header has no kid"
        case .unknownKeyID: "no developer key \"KEYNOPE001\" is registered for team \"TEAMA00001\""
        case .unregisteredTeam: "no developer key \"KEYA000001\" is registered for team \"TEAMZ00009\""
        case .otherTeamsSecret: "client_id com.example.alpha belongs to team TEAMA00001, not to TEAMB00002"
        case .wrongSubject:
            "client_secret sub is \"com.example.beta\"; expected the client_id \"com.example.alpha\""
        case .wrongAudience: "client_secret aud is [\"https://appleid.apple.com/\"]"
        case .expired: "client_secret expired at 1800000000; now is 1800000000"
        case .issuedInFuture: "client_secret iat 1800000061 is in the future"
        case .missingIssuedAt: "client_secret has no iat"
        case .lifetimeTooLong: "client_secret lifetime (exp - iat) is 15777001 s; the limit is 15777000 s"
        case .otherKeysSignature: "client_secret signature does not verify with developer key KEYA000001"
        case .garbage: "client_secret is not a JWS"
        case .unknownClient: "client_id \"com.example.unknown\" is not a known app"
        }
    }

    /// The client id the request names.
    var clientID: String { self == .unknownClient ? "com.example.unknown" : appA }

    /// The secret, made at `now`.
    func secret(now: Int64) throws -> String {
        var claims = JWTClaims(
            issuer: teamA, subject: clientID, audience: .single("https://appleid.apple.com"),
            expiresAt: now + 3600, issuedAt: now)
        var signer = try JWSSigner(key: .p256(developerKeyA), algorithm: .es256, keyID: keyA)
        switch self {
        case .hs256Algorithm:
            let header = Base64URL.encode(
                JSONValue.object(["alg": "HS256", "kid": .string(keyA)]).serialized())
            let input = header + "." + Base64URL.encode(claims.json.serialized())
            let mac = HMACSHA256.authenticationCode(for: Array(input.utf8), key: developerKeyA.publicKey.x)
            return input + "." + Base64URL.encode(mac)
        case .rs256Algorithm:
            signer = try JWSSigner(key: .rsa(testKeySet.activeKey.privateKey), algorithm: .rs256, keyID: keyA)
        case .missingKeyID: signer = try JWSSigner(key: .p256(developerKeyA), algorithm: .es256)
        case .unknownKeyID:
            signer = try JWSSigner(key: .p256(developerKeyA), algorithm: .es256, keyID: "KEYNOPE001")
        case .unregisteredTeam: claims.issuer = "TEAMZ00009"
        case .otherTeamsSecret:
            claims.issuer = teamB
            signer = try JWSSigner(key: .p256(developerKeyB), algorithm: .es256, keyID: keyB)
        case .wrongSubject: claims.subject = appB
        case .wrongAudience: claims.audience = .single("https://appleid.apple.com/")
        case .expired:
            claims.issuedAt = now - 3600
            claims.expiresAt = now
        case .issuedInFuture: claims.issuedAt = now + 61
        case .missingIssuedAt: claims.issuedAt = nil
        case .lifetimeTooLong:
            claims.issuedAt = now - 10
            claims.expiresAt = now - 10 + 15_777_001
        case .otherKeysSignature:
            let other = try P256PrivateKey(random: SeededRandom(seed: 0xC))
            signer = try JWSSigner(key: .p256(other), algorithm: .es256, keyID: keyA)
        case .garbage: return "not-a-jwt"
        case .unknownClient: break
        }
        return try JWS.sign(payload: claims.json.serialized(), signer: signer)
    }
}

@Suite("Client secret validation")
struct ClientSecretTests {
    /// Every client-secret fault is 400 `{"error":"invalid_client"}` at the token endpoint, with its reason.
    @Test("client secret faults are invalid_client", arguments: Deployment.allCases, SecretFault.allCases)
    func faults(deployment: Deployment, fault: SecretFault) async throws {
        try await withApple(deployment) { fixture in
            let code = try fixture.authorize().authorizationCode
            let response = try await fixture.postForm(
                "/auth/token",
                [
                    "grant_type": "authorization_code", "code": code, "client_id": fault.clientID,
                    "client_secret": try fault.secret(now: fixture.clock.now()),
                ])
            #expect(response.status == 400)
            #expect(try response.json() == ["error": "invalid_client"])
            let reason = response.headers[AppleIDProvider.reasonHeader] ?? ""
            #expect(reason.hasPrefix(fault.expectedReason), "\(reason)")
            // A refused client does not consume the code.
            #expect(try await fixture.redeem(code).status == 200)
        }
    }

    /// The limits are inclusive: a lifetime of exactly 15,777,000 s and an `iat` 60 s ahead are accepted.
    @Test("client secret limits", arguments: Deployment.allCases)
    func limits(deployment: Deployment) async throws {
        try await withApple(deployment) { fixture in
            let now = fixture.clock.now()
            for (issuedAt, lifetime) in [(now - 10, Int64(15_777_000)), (now + 60, Int64(300))] {
                let code = try fixture.authorize().authorizationCode
                let secret = try AppleClientSecret.make(
                    teamID: teamA, keyID: keyA, clientID: appA, privateKey: developerKeyA, issuedAt: issuedAt,
                    lifetime: lifetime)
                let response = try await fixture.postForm(
                    "/auth/token",
                    [
                        "grant_type": "authorization_code", "code": code, "client_id": appA,
                        "client_secret": secret,
                    ])
                #expect(response.status == 200, "iat \(issuedAt - now), lifetime \(lifetime)")
            }
        }
    }

    /// `AppleClientSecret.make` writes Apple's header and claims.
    @Test("client secret shape")
    func shape() throws {
        let secret = try AppleClientSecret.make(
            teamID: teamA, keyID: keyA, clientID: appA, privateKey: developerKeyA, issuedAt: testEpoch,
            lifetime: 600)
        #expect(try headerOf(secret) == ["alg": "ES256", "kid": .string(keyA)])
        #expect(
            try claimsOf(secret)
                == [
                    "iss": .string(teamA), "sub": .string(appA), "aud": "https://appleid.apple.com",
                    "iat": .int(testEpoch), "exp": .int(testEpoch + 600),
                ])
        try JWS.parse(secret).verify(with: JWK(developerKeyA.publicKey, keyID: keyA))
    }
}
