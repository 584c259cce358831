import HTTPCore
import JOSE
import JSON
import OAuthCore
import TestSupport
import Testing

@testable import Issuer

/// The token tests' tenant, breaking the given rules.
private func deviating(_ deviations: Set<IssuerDeviation>) -> Tenant {
    var tenant = tokenTestTenant()
    tenant.deviations = deviations
    return tenant
}

/// The confidential web client of `tokenTestTenant`, authenticating with HTTP Basic.
private let webAuthorization = basicAuthorization("web", "web-secret/+:é")

/// Each test runs the same requests against an issuer with the deviation and one without: the
/// deviation's answer, then the one the specifications ask for.
@Suite("Issuer deviations: authorization, token, revocation, userinfo and DPoP")
struct IssuerDeviationTokenTests {
    // MARK: PKCE

    /// pkce-optional: a public client's request without code_challenge gets a code, redeemed
    /// without a verifier; a verifier sent for it is still refused. Without the deviation the
    /// request is sent back invalid_request (RFC 7636 §4.4.1, RFC 8252 §8.1).
    @Test("pkce-optional", arguments: [true, false])
    func pkceOptional(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.pkceOptional] : [])) { fixture in
            var browser = Browser(fixture)
            let request = NativeApp.authorization(["code_challenge": nil, "code_challenge_method": nil])
            guard deviates else {
                try expectAuthorizationError(
                    try await browser.authorize(request), "invalid_request", fixture: fixture)
                return
            }
            let code = try #require(try redirectParameters(try await browser.signIn(request))["code"])
            #expect(try await fixture.redeem(code, verifier: nil).status == 200)

            let another = try #require(try redirectParameters(try await browser.authorize(request))["code"])
            expectError(try await fixture.redeem(another, verifier: testVerifier), 400, "invalid_grant")
        }
    }

    /// pkce-optional with pkce-downgrade-allowed: the verifier sent for a code issued without a
    /// challenge is ignored.
    @Test("pkce-optional with pkce-downgrade-allowed")
    func pkceOptionalWithDowngrade() async throws {
        try await withIssuer(.inProcess, tenant: deviating([.pkceOptional, .pkceDowngradeAllowed])) {
            fixture in
            var browser = Browser(fixture)
            let request = NativeApp.authorization(["code_challenge": nil, "code_challenge_method": nil])
            let code = try #require(try redirectParameters(try await browser.signIn(request))["code"])
            #expect(try await fixture.redeem(code, verifier: testVerifier).status == 200)
        }
    }

    /// pkce-plain-allowed: `plain`, and a challenge without a method (plain, RFC 7636 §4.3), are
    /// accepted and the verifier compared as plain text; S256 still works. Without the
    /// deviation both plain requests are sent back invalid_request (RFC 9700 §2.1.1).
    @Test("pkce-plain-allowed", arguments: [true, false])
    func pkcePlainAllowed(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.pkcePlainAllowed] : [])) { fixture in
            var browser = Browser(fixture)
            let plain = NativeApp.authorization([
                "code_challenge": testVerifier, "code_challenge_method": "plain",
            ])
            let noMethod = NativeApp.authorization([
                "code_challenge": testVerifier, "code_challenge_method": nil,
            ])
            guard deviates else {
                try expectAuthorizationError(
                    try await browser.authorize(plain), "invalid_request", fixture: fixture)
                try expectAuthorizationError(
                    try await browser.authorize(noMethod), "invalid_request", fixture: fixture)
                return
            }
            let first = try #require(try redirectParameters(try await browser.signIn(plain))["code"])
            #expect(try await fixture.redeem(first, verifier: testVerifier).status == 200)

            let second = try #require(try redirectParameters(try await browser.authorize(noMethod))["code"])
            // The S256 transform of the verifier is not what was sent: plain compares as is.
            expectError(
                try await fixture.redeem(second, verifier: String(repeating: "a", count: 43)), 400,
                "invalid_grant")
            let third = try #require(try redirectParameters(try await browser.authorize(noMethod))["code"])
            #expect(try await fixture.redeem(third, verifier: testVerifier).status == 200)

            let s256 = try #require(try redirectParameters(try await browser.authorize())["code"])
            #expect(try await fixture.redeem(s256, verifier: testVerifier).status == 200)
        }
    }

    /// pkce-downgrade-allowed: a code issued without a challenge ignores the token request's
    /// code_verifier. Without the deviation such a request is refused invalid_grant, as RFC 9700
    /// §2.1.1 requires (the issuer's normal behaviour).
    @Test("pkce-downgrade-allowed", arguments: [true, false])
    func pkceDowngradeAllowed(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.pkceDowngradeAllowed] : [])) {
            fixture in
            let response = try await fixture.redeem(fixture.code(challenge: nil), verifier: testVerifier)
            if deviates {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
            } else {
                expectError(response, 400, "invalid_grant")
                #expect(oauthErrorDescription(response).contains("issued without a code_challenge"))
            }
        }
    }

    /// code-ignores-verifier: a verifier is still required for a code with a challenge, but
    /// any value is taken. Without the deviation the wrong one is refused (RFC 7636 §4.6).
    @Test("code-ignores-verifier", arguments: [true, false])
    func codeIgnoresVerifier(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.codeIgnoresVerifier] : [])) {
            fixture in
            expectError(try await fixture.redeem(fixture.code(), verifier: nil), 400, "invalid_grant")
            let wrong = try await fixture.redeem(fixture.code(), verifier: "wrong")
            if deviates {
                #expect(wrong.status == 200, "body: \(wrong.bodyText ?? "")")
            } else {
                expectError(wrong, 400, "invalid_grant")
            }
        }
    }

    // MARK: Codes

    /// code-reusable: a second redemption issues new tokens and revokes nothing. Without the
    /// deviation it is refused, and what the first one issued is revoked (RFC 6749 §4.1.2, the
    /// issuer's normal behaviour).
    @Test("code-reusable", arguments: [true, false])
    func codeReusable(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.codeReusable] : [])) { fixture in
            let code = fixture.code()
            let first = TokenSet(body: try await fixture.redeem(code).jsonBody())
            let second = try await fixture.redeem(code)
            let firstRefresh = try #require(first.refreshToken)
            if deviates {
                #expect(second.status == 200, "body: \(second.bodyText ?? "")")
                let again = TokenSet(body: try second.jsonBody())
                #expect(again.accessToken != first.accessToken)
                #expect(again.refreshToken != first.refreshToken)
                #expect(try await fixture.userInfo(bearer: first.accessToken).status == 200)
                #expect(try await fixture.userInfo(bearer: again.accessToken).status == 200)
                #expect(try await fixture.refresh(firstRefresh).status == 200)
            } else {
                expectError(second, 400, "invalid_grant")
                expectError(try await fixture.userInfo(bearer: first.accessToken), 401, "invalid_token")
                expectError(try await fixture.refresh(firstRefresh), 400, "invalid_grant")
            }
        }
    }

    /// code-reuse-keeps-tokens: the second redemption is refused, but the first one's access
    /// and refresh tokens stay valid. Without the deviation they are revoked (RFC 6749 §4.1.2).
    @Test("code-reuse-keeps-tokens", arguments: [true, false])
    func codeReuseKeepsTokens(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.codeReuseKeepsTokens] : [])) {
            fixture in
            let code = fixture.code()
            let first = TokenSet(body: try await fixture.redeem(code).jsonBody())
            let firstRefresh = try #require(first.refreshToken)
            expectError(try await fixture.redeem(code), 400, "invalid_grant")
            if deviates {
                #expect(try await fixture.userInfo(bearer: first.accessToken).status == 200)
                #expect(try await fixture.refresh(firstRefresh).status == 200)
            } else {
                expectError(try await fixture.userInfo(bearer: first.accessToken), 401, "invalid_token")
                expectError(try await fixture.refresh(firstRefresh), 400, "invalid_grant")
            }
        }
    }

    /// code-ignores-redirect-uri: a token request naming another redirect URI redeems the code.
    /// Without the deviation it is refused (RFC 6749 §4.1.3).
    @Test("code-ignores-redirect-uri", arguments: [true, false])
    func codeIgnoresRedirectURI(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.codeIgnoresRedirectURI] : [])) {
            fixture in
            let response = try await fixture.redeem(
                fixture.code(), redirectURI: "com.example.app://elsewhere/callback")
            if deviates {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
            } else {
                expectError(response, 400, "invalid_grant")
            }
        }
    }

    /// code-ignores-client: a code issued to the native app is redeemed by the web client
    /// authenticating as itself. Without the deviation it is refused (RFC 6749 §4.1.3).
    @Test("code-ignores-client", arguments: [true, false])
    func codeIgnoresClient(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.codeIgnoresClient] : [])) { fixture in
            let response = try await fixture.token(
                [
                    "grant_type": "authorization_code", "code": fixture.code(),
                    "redirect_uri": appRedirectURI,
                    "code_verifier": testVerifier,
                ], headers: ["Authorization": webAuthorization])
            if deviates {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
                let access = try claims(of: TokenSet(body: try response.jsonBody()).accessToken)
                #expect(access["client_id"] == "web")
            } else {
                expectError(response, 400, "invalid_grant")
            }
        }
    }

    // MARK: Client authentication and ID tokens

    /// client-secret-post-refused: a client sending its secret in the body gets 401
    /// invalid_client, while discovery still lists the method and HTTP Basic still works.
    /// Without the deviation the same request gets tokens.
    @Test("client-secret-post-refused", arguments: [true, false])
    func clientSecretPostRefused(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.clientSecretPostRefused] : [])) {
            fixture in
            let form: FormParameters = [
                "grant_type": "authorization_code", "redirect_uri": "https://web.example/cb",
            ]
            var viaPost = form
            viaPost["code"] = fixture.code(
                clientID: "web", redirectURI: "https://web.example/cb", challenge: nil)
            viaPost["client_id"] = "web"
            viaPost["client_secret"] = "web-secret/+:é"
            let response = try await fixture.token(viaPost)
            if deviates {
                expectError(response, 401, "invalid_client")
            } else {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
            }
            var viaBasic = form
            viaBasic["code"] = fixture.code(
                clientID: "web", redirectURI: "https://web.example/cb", challenge: nil)
            #expect(
                try await fixture.token(viaBasic, headers: ["Authorization": webAuthorization]).status == 200)
            let document = try await fixture.get("/.well-known/openid-configuration").jsonBody()
            #expect(
                document["token_endpoint_auth_methods_supported"]?.arrayValue?.contains("client_secret_post")
                    == true)
        }
    }

    /// auth-time-omitted: ID tokens carry no auth_time. Without the deviation they do
    /// (OpenID Connect Core §2).
    @Test("auth-time-omitted", arguments: [true, false])
    func authTimeOmitted(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.authTimeOmitted] : [])) { fixture in
            let signedIn = try await fixture.signIn()
            let idToken = try claims(of: try #require(signedIn.idToken))
            #expect(idToken["auth_time"] == (deviates ? nil : .int(fixture.clock.now() - 5)))
            let refreshed = try await fixture.refresh(try #require(signedIn.refreshToken)).jsonBody()
            let refreshedIDToken = try claims(of: try #require(refreshed["id_token"]?.stringValue))
            #expect((refreshedIDToken["auth_time"] == nil) == deviates)
        }
    }

    // MARK: Refresh

    /// refresh-ignores-client: the native app's refresh token is redeemed by the web client
    /// authenticating as itself. Without the deviation it is refused (RFC 6749 §6).
    @Test("refresh-ignores-client", arguments: [true, false])
    func refreshIgnoresClient(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.refreshIgnoresClient] : [])) {
            fixture in
            let signedIn = try await fixture.signIn()
            let response = try await fixture.token(
                ["grant_type": "refresh_token", "refresh_token": try #require(signedIn.refreshToken)],
                headers: ["Authorization": webAuthorization])
            if deviates {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
            } else {
                expectError(response, 400, "invalid_grant")
            }
        }
    }

    // MARK: UserInfo and revocation

    /// userinfo-no-challenge: a request without a token gets 401 with no WWW-Authenticate.
    /// Without the deviation it carries the challenges (RFC 6750 §3).
    @Test("userinfo-no-challenge", arguments: [true, false])
    func userInfoNoChallenge(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.userInfoNoChallenge] : [])) {
            fixture in
            let response = try await fixture.get("/userinfo")
            #expect(response.status == 401)
            #expect(response.headers.values(for: "WWW-Authenticate").isEmpty == deviates)
        }
    }

    /// revocation-ignored: revocation answers 200 and the token stays valid. Without the
    /// deviation it is revoked (RFC 7009 §2.1).
    @Test("revocation-ignored", arguments: [true, false])
    func revocationIgnored(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.revocationIgnored] : [])) { fixture in
            let signedIn = try await fixture.signIn()
            let refreshToken = try #require(signedIn.refreshToken)
            #expect(try await fixture.revoke(signedIn.accessToken).status == 200)
            #expect(try await fixture.revoke(refreshToken).status == 200)
            let userInfo = try await fixture.userInfo(bearer: signedIn.accessToken)
            let refreshed = try await fixture.refresh(refreshToken)
            if deviates {
                #expect(userInfo.status == 200)
                #expect(refreshed.status == 200)
            } else {
                expectError(userInfo, 401, "invalid_token")
                expectError(refreshed, 400, "invalid_grant")
            }
        }
    }

    /// revocation-rejects-unknown: an unknown token is answered 400 invalid_request in JSON,
    /// while a known one is still revoked with 200. Without the deviation the unknown token
    /// gets 200 (RFC 7009 §2.2).
    @Test("revocation-rejects-unknown", arguments: [true, false])
    func revocationRejectsUnknown(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.revocationRejectsUnknown] : [])) {
            fixture in
            let unknown = try await fixture.revoke("not-a-token-of-this-issuer")
            if deviates {
                expectError(unknown, 400, "invalid_request")
                #expect(unknown.mediaType == "application/json")
            } else {
                #expect(unknown.status == 200)
            }
            let signedIn = try await fixture.signIn()
            #expect(try await fixture.revoke(signedIn.accessToken).status == 200)
            expectError(try await fixture.userInfo(bearer: signedIn.accessToken), 401, "invalid_token")
        }
    }

    // MARK: DPoP

    /// dpop-ignored: a sign-in with a DPoP proof gets Bearer tokens bound to nothing, and the
    /// refresh token needs no proof; discovery still advertises DPoP. Without the deviation
    /// the tokens are DPoP tokens bound to the key (RFC 9449 §5).
    @Test("dpop-ignored", arguments: [true, false])
    func dpopIgnored(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.dpopIgnored] : [])) { fixture in
            let key = try DPoPKey()
            let signedIn = try await fixture.signIn(dpop: key)
            let access = try claims(of: signedIn.accessToken)
            let refreshed = try await fixture.refresh(try #require(signedIn.refreshToken))
            if deviates {
                #expect(signedIn.body["token_type"] == "Bearer")
                #expect(access["cnf"] == nil)
                #expect(refreshed.status == 200, "body: \(refreshed.bodyText ?? "")")
            } else {
                #expect(signedIn.body["token_type"] == "DPoP")
                #expect(access["cnf"]?["jkt"] == .string(key.thumbprint))
                expectError(refreshed, 400, "invalid_dpop_proof")
            }
            let document = try await fixture.get("/.well-known/openid-configuration").jsonBody()
            #expect(document["dpop_signing_alg_values_supported"]?.arrayValue?.isEmpty == false)
        }
    }

    /// dpop-refresh-unbound: the native app's DPoP-bound refresh token is refreshed with a
    /// proof of another key. Without the deviation it is refused (RFC 9449 §5).
    @Test("dpop-refresh-unbound", arguments: [true, false])
    func dpopRefreshUnbound(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.dpopRefreshUnbound] : [])) {
            fixture in
            let signedIn = try await fixture.signIn(dpop: try DPoPKey())
            let other = try DPoPKey()
            let refreshToken = try #require(signedIn.refreshToken)
            // A proof is still needed.
            expectError(try await fixture.refresh(refreshToken), 400, "invalid_dpop_proof")
            let response = try await fixture.refresh(
                refreshToken, headers: ["DPoP": try other.proof(fixture)])
            if deviates {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
                let access = try claims(of: TokenSet(body: try response.jsonBody()).accessToken)
                #expect(access["cnf"]?["jkt"] == .string(other.thumbprint))
            } else {
                expectError(response, 400, "invalid_grant")
            }
        }
    }

    /// dpop-jkt-ignored: a code bound to a key by dpop_jkt is redeemed with a proof of another
    /// key. Without the deviation it is refused, as the issuer normally binds the code
    /// (RFC 9449 §10).
    @Test("dpop-jkt-ignored", arguments: [true, false])
    func dpopJKTIgnored(deviates: Bool) async throws {
        try await withIssuer(.inProcess, tenant: deviating(deviates ? [.dpopJKTIgnored] : [])) { fixture in
            let bound = try DPoPKey()
            let other = try DPoPKey()
            let code = fixture.code(dpopKeyThumbprint: bound.thumbprint)
            let response = try await fixture.redeem(code, headers: ["DPoP": try other.proof(fixture)])
            if deviates {
                #expect(response.status == 200, "body: \(response.bodyText ?? "")")
                let access = try claims(of: TokenSet(body: try response.jsonBody()).accessToken)
                #expect(access["cnf"]?["jkt"] == .string(other.thumbprint))
            } else {
                expectError(response, 400, "invalid_grant")
                let redeemed = try await fixture.redeem(
                    fixture.code(dpopKeyThumbprint: bound.thumbprint),
                    headers: ["DPoP": try bound.proof(fixture)])
                #expect(redeemed.status == 200)
            }
        }
    }
}

/// The pure decisions the deviations pass through: each deviation lets through exactly the
/// requests its rule refuses, and every other refusal stays.
@Suite struct IssuerDeviationDecisionTests {
    static let verifier = String(repeating: "v", count: 43)

    /// A request fault the code redemption refuses, and the deviation that lets it through.
    struct CodeFault: Sendable {
        var name: String
        var liftedBy: IssuerDeviation?
        var record = AuthorizationCodeRecord(
            clientID: "app", redirectURI: "app://cb", userID: "u", scopes: ["openid"], audience: nil,
            nonce: nil, codeChallenge: nil, authTime: 0, sessionID: nil, dpopKeyThumbprint: nil,
            expiresAt: 100, redeemed: nil)
        var clientID = "app"
        var redirectURI = "app://cb"
        var verifier: String?
        var thumbprint: String?

        func problem(_ deviations: Set<IssuerDeviation>) -> OAuthError? {
            record.redemptionProblem(
                now: 50, clientID: clientID, redirectURI: redirectURI, verifier: verifier,
                proofThumbprint: thumbprint, userExists: true, deviations: deviations)
        }
    }

    static var codeFaults: [CodeFault] {
        var faults: [CodeFault] = []
        func fault(_ name: String, _ liftedBy: IssuerDeviation?, _ change: (inout CodeFault) -> Void) {
            var fault = CodeFault(name: name, liftedBy: liftedBy)
            change(&fault)
            faults.append(fault)
        }
        let challenge = PKCE.challenge(for: verifier)
        fault("another client", .codeIgnoresClient) { $0.clientID = "other" }
        fault("another redirect URI", .codeIgnoresRedirectURI) { $0.redirectURI = "app://cb/" }
        fault("verifier missing", nil) { $0.record.codeChallenge = challenge }
        fault("verifier malformed", .codeIgnoresVerifier) {
            $0.record.codeChallenge = challenge
            $0.verifier = "short"
        }
        fault("verifier wrong", .codeIgnoresVerifier) {
            $0.record.codeChallenge = challenge
            $0.verifier = String(repeating: "w", count: 43)
        }
        fault("verifier without challenge", .pkceDowngradeAllowed) { $0.verifier = verifier }
        fault("dpop_jkt without proof", .dpopJKTIgnored) { $0.record.dpopKeyThumbprint = "k" }
        fault("dpop_jkt with another key", .dpopJKTIgnored) {
            $0.record.dpopKeyThumbprint = "k"
            $0.thumbprint = "other"
        }
        fault("expired", nil) { $0.record.expiresAt = 50 }
        return faults
    }

    static let codeDeviations: [IssuerDeviation] = [
        .codeIgnoresClient, .codeIgnoresRedirectURI, .codeIgnoresVerifier, .pkceDowngradeAllowed,
        .dpopJKTIgnored,
    ]

    /// Every code fault is refused without deviations; each redemption deviation lets through
    /// its own faults and no other.
    @Test(arguments: codeDeviations)
    func aCodeDeviationLiftsOnlyItsRule(deviation: IssuerDeviation) {
        for fault in Self.codeFaults {
            #expect(fault.problem([]) != nil, "\(fault.name) is refused normally")
            let lifted = fault.problem([deviation]) == nil
            #expect(lifted == (fault.liftedBy == deviation), "\(fault.name) under \(deviation)")
        }
    }

    /// A plain challenge compares the verifier as is: the verifier itself matches, its S256
    /// transform does not; an S256 challenge is not matched by the verifier as plain text.
    @Test func aPlainChallengeIsComparedAsPlainText() {
        var plain = CodeFault(name: "plain", liftedBy: nil)
        plain.record.codeChallenge = Self.verifier
        plain.record.codeChallengeMethod = .plain
        plain.verifier = Self.verifier
        #expect(plain.problem([]) == nil)
        plain.record.codeChallenge = PKCE.challenge(for: Self.verifier)
        #expect(plain.problem([]) != nil)
        var s256 = plain
        s256.record.codeChallengeMethod = .s256
        #expect(s256.problem([]) == nil)
        s256.record.codeChallenge = Self.verifier
        #expect(s256.problem([]) != nil)
    }

    /// The refresh decision: refresh-ignores-client lets another client through,
    /// dpop-refresh-unbound a proof of another key; neither lifts a missing proof, expiry or
    /// revocation.
    @Test func refreshDeviationsLiftOnlyTheirRule() {
        func problem(
            owner: String = "app", binding: String? = nil, thumbprint: String? = nil, now: Int64 = 50,
            familyRevoked: Bool = false, _ deviations: Set<IssuerDeviation>
        ) -> OAuthError? {
            RefreshTokenRecord(status: .active, familyID: 1, expiresAt: 100).refreshProblem(
                issuedTo: owner, familyRevoked: familyRevoked, boundTo: binding, clientID: "app",
                proofThumbprint: thumbprint, now: now, deviations: deviations)
        }
        for deviation in [IssuerDeviation.refreshIgnoresClient, .dpopRefreshUnbound] {
            let set: Set<IssuerDeviation> = [deviation]
            #expect((problem(owner: "other", set) == nil) == (deviation == .refreshIgnoresClient))
            #expect(
                (problem(binding: "k", thumbprint: "other", set) == nil) == (deviation == .dpopRefreshUnbound)
            )
            #expect(problem(binding: "k", set) != nil)
            #expect(problem(now: 100, set) != nil)
            #expect(problem(familyRevoked: true, set) != nil)
        }
        #expect(problem(owner: "other", []) != nil)
        #expect(problem(binding: "k", thumbprint: "other", []) != nil)
    }

    /// Only an unknown token is refused, and only with revocation-rejects-unknown.
    @Test func revocationRefusesOnlyUnknownTokens() {
        #expect(RevocationDecision.notFound.refusal(rejectsUnknown: true)?.code == "invalid_request")
        #expect(RevocationDecision.notFound.refusal(rejectsUnknown: false) == nil)
        #expect(RevocationDecision.revoked.refusal(rejectsUnknown: true) == nil)
        #expect(RevocationDecision.leftAlone.refusal(rejectsUnknown: true) == nil)
    }
}
