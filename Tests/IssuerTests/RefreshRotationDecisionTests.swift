import Testing

@testable import Issuer

/// Each rotation profile's rule for a rotated refresh token presented again, as a decision
/// from the facts: no issuer, no HTTP.
@Suite struct RefreshRotationDecisionTests {
    typealias Case = (RefreshRotation, age: Int64, successorUnused: Bool, ReusedRefreshTokenDecision)

    static let alreadyUsed = "the refresh token was already used"

    @Test(
        arguments: [
            // SignInSim: within the grace while the successor is unused, its answer counts as lost.
            (
                .signinsim(grace: 10, onReuse: .revokeFamily), 10, true,
                .issueAgain(revokingUnusedSuccessor: true)
            ),
            (
                .signinsim(grace: 10, onReuse: .revokeFamily), 11, true,
                .refuse("refresh token replay detected", revoking: .grant)
            ),
            (
                .signinsim(grace: 10, onReuse: .revokeFamily), 1, false,
                .refuse("refresh token replay detected", revoking: .grant)
            ),
            (.signinsim(grace: 0, onReuse: .refuse), 0, true, .refuse(alreadyUsed, revoking: .nothing)),
            // Auth0: only the previous token, within the reuse interval; reuse detection revokes the
            // refresh tokens, not the access tokens.
            (.auth0(reuseInterval: 5), 4, true, .issueAgain(revokingUnusedSuccessor: false)),
            (
                .auth0(reuseInterval: 5), 5, true,
                .refuse(
                    "refresh token reuse detected: every refresh token of this grant is revoked",
                    revoking: .refreshTokens)
            ),
            (
                .auth0(reuseInterval: 5), 1, false,
                .refuse(
                    "refresh token reuse detected: every refresh token of this grant is revoked",
                    revoking: .refreshTokens)
            ),
            // Okta: any generation within the grace; after it, the grant and its access tokens.
            (.okta(gracePeriod: 30), 29, false, .issueAgain(revokingUnusedSuccessor: false)),
            (
                .okta(gracePeriod: 30), 30, true,
                .refuse(
                    "refresh token reuse detected: the newest refresh token and the access tokens are revoked",
                    revoking: .grant)
            ),
            // django-oauth-toolkit: the same successor within the grace; reuse protection revokes.
            (
                .djangoOAuthToolkit(gracePeriod: 60, reuseProtection: true), 59, false,
                .sameSuccessorWhileUnused
            ),
            (
                .djangoOAuthToolkit(gracePeriod: 60, reuseProtection: true), 60, true,
                .refuse(alreadyUsed, revoking: .grant)
            ),
            (
                .djangoOAuthToolkit(gracePeriod: 0, reuseProtection: false), 0, true,
                .refuse(alreadyUsed, revoking: .nothing)
            ),
            // Keycloak counts uses elsewhere; without rotation a rotated token cannot exist.
            (.keycloak(maxReuse: 3), 0, true, .refuse(alreadyUsed, revoking: .nothing)),
            (.none, 0, true, .refuse(alreadyUsed, revoking: .nothing)),
        ] as [Case])
    func reuse(
        profile: RefreshRotation, age: Int64, successorUnused: Bool, expected: ReusedRefreshTokenDecision
    ) {
        #expect(profile.decideReuse(age: age, successorUnused: successorUnused) == expected)
    }

    static func problem(
        _ status: RefreshTokenRecord.Status = .active, owner: String = "app", familyRevoked: Bool = false,
        binding: String? = nil, clientID: String = "app", thumbprint: String? = nil, now: Int64 = 50
    ) -> String? {
        let record = RefreshTokenRecord(status: status, familyID: 1, expiresAt: 100)
        return record.refreshProblem(
            issuedTo: owner, familyRevoked: familyRevoked, boundTo: binding, clientID: clientID,
            proofThumbprint: thumbprint, now: now
        )?.description
    }

    @Test func aLiveTokenOfTheClientWithItsKeyIsExchanged() {
        #expect(Self.problem() == nil)
        #expect(Self.problem(binding: "k", thumbprint: "k") == nil)
        #expect(Self.problem(.rotated(at: 10, successor: TokenHash(of: "s"))) == nil, "the profile decides")
    }

    @Test func eachRefusalBeforeTheProfilesRule() {
        let cases: [(String?, String)] = [
            (Self.problem(clientID: "other"), "issued to another client"),
            (Self.problem(now: 100), "expired"),
            (Self.problem(binding: "k"), "send a proof signed with it"),
            (Self.problem(binding: "k", thumbprint: "other"), "bound to another DPoP key"),
            (Self.problem(familyRevoked: true), "was revoked"),
            (Self.problem(.revoked), "was revoked"),
        ]
        for (problem, fragment) in cases {
            #expect(problem?.contains(fragment) == true, "\(problem ?? "exchanged"), expected \(fragment)")
        }
    }
}
