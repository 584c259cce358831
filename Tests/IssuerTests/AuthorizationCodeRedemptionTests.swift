import OAuthCore
import Testing

@testable import Issuer

/// Whether an unused authorization code may be redeemed, decided from the token request's
/// facts alone: each refusal the token endpoint makes, without an issuer or HTTP.
@Suite struct AuthorizationCodeRedemptionTests {
    static let verifier = String(repeating: "v", count: 43)

    static func record(challenge: String? = nil, thumbprint: String? = nil) -> AuthorizationCodeRecord {
        AuthorizationCodeRecord(
            clientID: "app", redirectURI: "app://cb", userID: "u", scopes: ["openid"], audience: nil,
            nonce: nil,
            codeChallenge: challenge, authTime: 0, sessionID: nil, dpopKeyThumbprint: thumbprint,
            expiresAt: 100,
            redeemed: nil)
    }

    static func problem(
        _ record: AuthorizationCodeRecord, now: Int64 = 50, clientID: String = "app",
        redirectURI: String = "app://cb", verifier: String? = nil, thumbprint: String? = nil,
        userExists: Bool = true
    ) -> String? {
        record.redemptionProblem(
            now: now, clientID: clientID, redirectURI: redirectURI, verifier: verifier,
            proofThumbprint: thumbprint, userExists: userExists
        )?.description
    }

    @Test func aMatchingRequestRedeems() {
        let challenge = PKCE.challenge(for: Self.verifier)
        #expect(Self.problem(Self.record()) == nil)
        #expect(Self.problem(Self.record(challenge: challenge), verifier: Self.verifier) == nil)
        #expect(Self.problem(Self.record(thumbprint: "k"), thumbprint: "k") == nil)
    }

    @Test func eachMismatchIsRefused() {
        let challenge = PKCE.challenge(for: Self.verifier)
        let cases: [(String?, String)] = [
            (Self.problem(Self.record(), now: 100), "expired"),
            (Self.problem(Self.record(), clientID: "other"), "issued to another client"),
            (Self.problem(Self.record(), redirectURI: "app://cb/"), "redirect_uri differs"),
            (Self.problem(Self.record(challenge: challenge)), "code_verifier is required"),
            (Self.problem(Self.record(challenge: challenge), verifier: "short"), "43 to 128 characters"),
            (
                Self.problem(Self.record(challenge: challenge), verifier: String(repeating: "w", count: 43)),
                "does not match the code_challenge"
            ),
            (Self.problem(Self.record(), verifier: Self.verifier), "issued without a code_challenge"),
            (Self.problem(Self.record(thumbprint: "k")), "send a DPoP proof"),
            (
                Self.problem(Self.record(thumbprint: "k"), thumbprint: "other"),
                "not the one the code is bound to"
            ),
            (Self.problem(Self.record(), userExists: false), "no longer exists"),
        ]
        for (problem, fragment) in cases {
            #expect(problem?.contains(fragment) == true, "\(problem ?? "redeemed"), expected \(fragment)")
        }
    }
}
