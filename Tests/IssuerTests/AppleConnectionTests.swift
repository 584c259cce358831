import AppleID
import HTTPCore
import Issuer
import JSON
import OAuthCore
import TestSupport
import Testing

extension HTTPResponse {
    /// Expects an OAuth error answer with this status and `error` code, and returns its
    /// `error_description` for the test's own check of the wording.
    fileprivate func expectOAuthError(
        _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        #expect(self.status == status, sourceLocation: sourceLocation)
        #expect(oauthError(self) == code, sourceLocation: sourceLocation)
        return oauthErrorDescription(self)
    }
}

/// The issuer's Apple connection end to end: a native Apple authorization on the simulated
/// device, its code exchanged at the issuer (RFC 8693, Auth0's apple-authz-code), redeemed at
/// the simulated Apple.
@Suite("Apple connection: native code exchange")
struct AppleConnectionTests {
    /// The first authorization's code with the name as user_profile creates the named user.
    @Test("first sign-in creates the user with name and email", arguments: Deployment.allCases)
    func firstSignIn(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let credential = try fixture.authorize()
            #expect(credential.fullName != nil)
            let response = try await fixture.signIn(credential)
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            let body = try response.jsonBody()
            let idToken = try claims(of: try #require(body["id_token"]?.stringValue))
            #expect(idToken["sub"] == .string("apple|" + credential.user))
            #expect(idToken["name"] == "Ada Lovelace")
            let user = try #require(try await fixture.user(credential))
            #expect(user["name"] == "Ada Lovelace")
            #expect(user["given_name"] == "Ada")
            #expect(user["family_name"] == "Lovelace")
            #expect(user["email"] == "ada@example.com")
            #expect(user["email_verified"] == true)
            #expect(user["connection"] == "apple")
        }
    }

    /// A returning authorization has no name; without user_profile the same user keeps theirs.
    @Test("returning sign-in finds the same user and keeps the name", arguments: Deployment.allCases)
    func returningSignIn(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let first = try fixture.authorize()
            #expect(try await fixture.signIn(first).status == 200)
            let second = try fixture.authorize()
            #expect(second.fullName == nil)
            #expect(second.email == nil)
            #expect(second.user == first.user)
            let response = try await fixture.signIn(second)
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            let idToken = try claims(of: try #require(try response.jsonBody()["id_token"]?.stringValue))
            #expect(idToken["sub"] == .string("apple|" + first.user))
            let users = try await fixture.issuer.get("/_admin/users").jsonBody()["users"]?.arrayValue ?? []
            #expect(users.filter { $0["connection"] == "apple" }.count == 1)
            #expect(try await fixture.user(first)?["name"] == "Ada Lovelace")
        }
    }

    /// Field bug 10: the first exchange fails (Apple answers 5xx), the app signs in again, gets
    /// a returning credential without the name, and the user is created without one.
    @Test("a failed first exchange loses the name", arguments: Deployment.allCases)
    func nameLostAfterFailure(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let first = try fixture.authorize()
            fixture.wire.failNext(.serverError)
            let failed = try await fixture.signIn(first)
            #expect(failed.status == 503)
            #expect(oauthError(failed) == "temporarily_unavailable")
            #expect(try await fixture.user(first) == nil)

            let retry = try fixture.authorize()
            #expect(retry.fullName == nil)
            let response = try await fixture.signIn(retry)
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            let user = try #require(try await fixture.user(retry))
            #expect(user["name"] == nil)
            #expect(user["given_name"] == nil)
        }
    }

    /// Field bug 10: an app that never sends user_profile loses the name for good; later
    /// exchanges have nothing to send.
    @Test("a first exchange without user_profile loses the name", arguments: Deployment.allCases)
    func nameLostWithoutProfile(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let first = try fixture.authorize()
            #expect(first.fullName != nil)
            let response = try await fixture.exchange(code: first.authorizationCode)
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            #expect(try await fixture.user(first)?["name"] == nil)
            for _ in 0..<2 {
                let later = try fixture.authorize()
                #expect(later.fullName == nil)
                #expect(try await fixture.signIn(later).status == 200)
            }
            let user = try #require(try await fixture.user(first))
            #expect(user["name"] == nil)
            #expect(user["email"] == "ada@example.com")
        }
    }

    /// Field bug 12: a code redeems once; the retry is Auth0's 403 "Invalid authorization code".
    @Test("a reused code is 403 invalid_grant", arguments: Deployment.allCases)
    func reusedCode(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let credential = try fixture.authorize()
            #expect(try await fixture.signIn(credential).status == 200)
            let again = try await fixture.signIn(credential)
            let description = again.expectOAuthError(403, "invalid_grant")
            #expect(description.hasPrefix("Invalid authorization code"), "\(description)")
            #expect(description.contains("The code has already been used."))
        }
    }

    /// Field bug 12: codes live 5 minutes on the shared clock.
    @Test("a code older than 5 minutes is 403 invalid_grant", arguments: Deployment.allCases)
    func expiredCode(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let fresh = try fixture.authorize()
            fixture.clock.advance(by: 299)
            #expect(try await fixture.signIn(fresh).status == 200)

            let stale = try fixture.authorize()
            fixture.clock.advance(by: 301)
            let response = try await fixture.signIn(stale)
            let description = response.expectOAuthError(403, "invalid_grant")
            #expect(description.hasPrefix("Invalid authorization code"), "\(description)")
        }
    }

    /// A code Apple issued to another app of the team is not the client's: invalid_grant.
    @Test("a code of another bundle id is invalid_grant", arguments: Deployment.allCases)
    func otherBundle(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            // Apple knows the client's app (it has authorized it before) and the other app.
            _ = try fixture.authorize("bob@example.com")
            let credential = try fixture.authorize(bundleID: otherBundleID)
            let response = try await fixture.signIn(credential)
            let description = response.expectOAuthError(403, "invalid_grant")
            #expect(description.contains("client_id mismatch"), "\(description)")
            #expect(try await fixture.user(credential) == nil)
        }
    }

    /// A client that is not one of the connection's bundle ids may not exchange Apple codes.
    @Test("a client outside bundle_ids is unauthorized_client")
    func clientOutsideBundleIDs() async throws {
        let onlyOther: @Sendable (inout AppleConnectionSettings) -> Void = { $0.bundleIDs = [otherBundleID] }
        try await withAppleAndIssuer(.inProcess, settings: onlyOther) { fixture in
            let response = try await fixture.signIn(try fixture.authorize())
            #expect(response.status == 400)
            #expect(oauthError(response) == "unauthorized_client")
        }
    }

    /// The raw nonce of the exchange must hash to the token's nonce.
    @Test("nonce: raw nonce matches, or invalid_grant", arguments: Deployment.allCases)
    func nonce(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let raw = "raw-nonce-0123456789"
            let matching = try fixture.authorize(nonce: AppleNonce.sha256Hex(raw))
            let ok = try await fixture.signIn(matching, extra: ["nonce": raw])
            #expect(ok.status == 200, "\(ok.bodyText ?? "")")

            let mismatched = try fixture.authorize(nonce: AppleNonce.sha256Hex(raw))
            let refused = try await fixture.signIn(mismatched, extra: ["nonce": "another-raw-nonce"])
            let description = refused.expectOAuthError(403, "invalid_grant")
            #expect(description.contains("nonce"), "\(description)")
        }
    }

    /// Field bug 11: a tenant that reproduces Auth0 refuses any nonce on the native path.
    @Test("rejectNonce: any nonce is 400 Error from Apple connection")
    func rejectNonce() async throws {
        let refusingNonces: @Sendable (inout AppleConnectionSettings) -> Void = { $0.rejectNonce = true }
        try await withAppleAndIssuer(.inProcess, settings: refusingNonces) { fixture in
            let raw = "raw-nonce"
            let credential = try fixture.authorize(nonce: AppleNonce.sha256Hex(raw))
            let refused = try await fixture.signIn(credential, extra: ["nonce": raw])
            let description = refused.expectOAuthError(400, "invalid_request")
            #expect(description.hasPrefix("Error from Apple connection"), "\(description)")
            // The code was not spent: the same exchange without the nonce succeeds.
            #expect(try await fixture.signIn(credential).status == 200)
        }
    }

    /// Field bug 13: an Apple connection that takes identity tokens only refuses the native
    /// code as an unsupported subject token type, and still exchanges the identity token.
    @Test("acceptsAuthorizationCodes false: codes are an unsupported subject_token_type")
    func identityTokensOnly() async throws {
        let tokensOnly: @Sendable (inout AppleConnectionSettings) -> Void = {
            $0.acceptsAuthorizationCodes = false
        }
        try await withAppleAndIssuer(.inProcess, settings: tokensOnly) { fixture in
            let credential = try fixture.authorize()
            let refused = try await fixture.signIn(credential)
            let description = refused.expectOAuthError(400, "invalid_request")
            #expect(description.hasPrefix("unsupported subject_token_type"), "\(description)")
            let accepted = try await fixture.issuer.exchange(credential.identityToken)
            #expect(accepted.status == 200, "\(accepted.bodyText ?? "")")
        }
    }

    /// Field bug 13: with refusesUnlinkedAccounts, a first Apple sign-in with the email of an
    /// existing password account is refused; other emails, and a tenant without the rule, get
    /// an Apple account of their own.
    @Test("refusesUnlinkedAccounts: a taken email is refused, not merged or duplicated")
    func unlinkedAccounts() async throws {
        let refusing: @Sendable (inout AppleConnectionSettings) -> Void = {
            $0.refusesUnlinkedAccounts = true
        }
        try await withAppleAndIssuer(.inProcess, settings: refusing) { fixture in
            let alice = try fixture.authorize("alice@example.com")
            let refused = try await fixture.signIn(alice)
            let description = refused.expectOAuthError(400, "invalid_grant")
            #expect(description.contains("not linked"), "\(description)")
            #expect(try await fixture.user(alice) == nil)
            let kim = try fixture.authorize("kim@example.com")
            #expect(try await fixture.signIn(kim).status == 200)
        }
        try await withAppleAndIssuer(.inProcess) { fixture in
            let alice = try fixture.authorize("alice@example.com")
            #expect(try await fixture.signIn(alice).status == 200)
        }
    }

    /// Apple's identity token as an RFC 8693 id_token subject; another app's token is refused;
    /// the partner provider's tokens still verify beside it.
    @Test("Apple identity token as id_token subject", arguments: Deployment.allCases)
    func identityTokenSubject(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let credential = try fixture.authorize()
            let response = try await fixture.issuer.exchange(
                credential.identityToken, extra: ["user_profile": #"{"name":{"firstName":"Ada"}}"#])
            #expect(response.status == 200, "\(response.bodyText ?? "")")
            let idToken = try claims(of: try #require(try response.jsonBody()["id_token"]?.stringValue))
            #expect(idToken["sub"] == .string("apple|" + credential.user))
            #expect(try await fixture.user(credential)?["name"] == "Ada")

            let foreign = try fixture.authorize("bob@example.com", bundleID: otherBundleID)
            let refused = try await fixture.issuer.exchange(foreign.identityToken)
            let description = refused.expectOAuthError(400, "invalid_grant")
            #expect(description.contains("aud"), "\(description)")

            let partner = try await fixture.issuer.exchange(try partnerIDToken(now: fixture.clock.now()))
            #expect(partner.status == 200, "\(partner.bodyText ?? "")")
        }
    }

    /// Apple rotates its signing key: the connection fetches the JWK Set again for the new kid.
    @Test("key rotation at Apple", arguments: Deployment.allCases)
    func keyRotation(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            #expect(try await fixture.signIn(try fixture.authorize()).status == 200)
            let oldKey = fixture.apple.activeKeyID
            let newKey = try fixture.apple.rotateKeys()
            #expect(newKey != oldKey)
            let response = try await fixture.signIn(try fixture.authorize())
            #expect(response.status == 200, "\(response.bodyText ?? "")")
        }
    }

    /// Apple's string booleans ("true") are read as booleans.
    @Test("string booleans: email_verified parsed")
    func stringBooleans() async throws {
        var configuration = AppleConfiguration()
        configuration.booleanEncoding = .string
        try await withAppleAndIssuer(.inProcess, configuration: configuration) { fixture in
            let credential = try fixture.authorize()
            #expect(try await fixture.signIn(credential).status == 200)
            #expect(try await fixture.user(credential)?["email_verified"] == true)
        }
    }

    /// "Hide My Email": the private relay address is the user's email.
    @Test("private relay email stored", arguments: Deployment.allCases)
    func privateRelay(deployment: Deployment) async throws {
        try await withAppleAndIssuer(deployment) { fixture in
            let credential = try fixture.authorize(privateRelay: true)
            let relay = try #require(credential.email)
            #expect(relay.hasSuffix("@privaterelay.appleid.com"))
            #expect(try await fixture.signIn(credential).status == 200)
            let user = try #require(try await fixture.user(credential))
            #expect(user["email"] == .string(relay))
            #expect(user["email_verified"] == true)
        }
    }

    /// Apple unreachable is 503 and spends nothing: the same code then redeems.
    @Test("Apple unreachable is 503 temporarily_unavailable")
    func unreachable() async throws {
        try await withAppleAndIssuer(.inProcess) { fixture in
            let credential = try fixture.authorize()
            fixture.wire.failNext(.unreachable)
            let response = try await fixture.signIn(credential)
            #expect(response.status == 503)
            #expect(oauthError(response) == "temporarily_unavailable")
            #expect(try await fixture.signIn(credential).status == 200)
        }
    }

    /// A developer key Apple does not know: Apple's invalid_client is "Error from Apple connection".
    @Test("wrong developer key is 400 Error from Apple connection")
    func wrongDeveloperKey() async throws {
        let unknownKey: @Sendable (inout AppleConnectionSettings) -> Void = { $0.keyID = "UNKNOWNKEY" }
        try await withAppleAndIssuer(.inProcess, settings: unknownKey) { fixture in
            let response = try await fixture.signIn(try fixture.authorize())
            let description = response.expectOAuthError(400, "invalid_request")
            #expect(description.hasPrefix("Error from Apple connection"), "\(description)")
        }
    }

    /// Without connectApple the Apple code type stays refused, as before.
    @Test("an issuer without the connection refuses Apple codes")
    func notConnected() async throws {
        try await withIssuer(.inProcess) { fixture in
            let response = try await fixture.exchange(
                "some-code", type: TokenTypeIdentifier.appleAuthorizationCode)
            #expect(response.status == 400)
            #expect(oauthError(response) == "invalid_request")
            #expect(throws: IssuerError.self) {
                try fixture.issuer.connectApple(
                    transport: ClosureTransport { _ in HTTPResponse(status: 500) })
            }
        }
    }
}
