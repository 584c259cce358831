import HTTPCore
import JSON
import SignInSDK
import Testing

@Suite struct AppleSignInTests {
    func harness(_ faults: Set<BehaviorProfile.KnownFault> = []) async throws -> SDKHarness {
        try await SDKHarness(profile: BehaviorProfile(faults: faults)).configured()
    }

    func exchanges(_ harness: SDKHarness) -> [FormParameters] {
        harness.issuer.state.withLock { $0.exchanges }
    }

    /// The exchange has Auth0's shape: token-exchange grant, the Apple code, its type, and
    /// `user_profile` built from the name.
    @Test func exchangeCarriesTheAppleCodeAndTheName() async throws {
        let harness = try await harness()
        let session = try await harness.client.signInWithApple()
        #expect(session.subject == "user-1")
        let form = try #require(exchanges(harness).first)
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        #expect(form["subject_token"] == "apple-code-1")
        #expect(form["subject_token_type"] == "http://auth0.com/oauth/token-type/apple-authz-code")
        #expect(form["client_id"] == "com.example.app")
        #expect(form["user_profile"] == #"{"name":{"firstName":"Alice","lastName":"Liddell"}}"#)
        #expect(harness.storage.keys == [SignInClient.credentialsKey])
    }

    /// Field bug 10: the fault never sends the name.
    @Test func neverSendingTheNameLosesIt() async throws {
        let harness = try await harness([.neverSendUserProfile])
        _ = try await harness.client.signInWithApple()
        #expect(exchanges(harness).first?["user_profile"] == nil)
    }

    /// Field bug 10: after a failed first exchange, the retry still carries the name (kept in
    /// storage), unless the fault forgets it.
    @Test(arguments: [false, true]) func nameSurvivesAFailedExchange(faulty: Bool) async throws {
        let harness = try await harness(faulty ? [.forgetAppleName] : [])
        // The first attempt fails at the issuer (Apple unreachable from the issuer).
        harness.issuer.update {
            $0.failNextExchange = .json(["error": "temporarily_unavailable"], status: 503)
        }
        _ = await capture { try await harness.client.signInWithApple() }
        _ = try await harness.client.signInWithApple()
        let retry = try #require(exchanges(harness).last)
        #expect((retry["user_profile"] != nil) == !faulty)
    }

    /// Field bug 11: the fault always requests a nonce, which the Auth0 path refuses.
    @Test(arguments: [false, true]) func nonceOnTheNativePath(faulty: Bool) async throws {
        let harness = try await harness(faulty ? [.nonceOnAppleExchange] : [])
        harness.issuer.update { $0.rejectAppleNonce = true }
        let error = await capture { try await harness.client.signInWithApple() }
        #expect((error?.oauthError == "invalid_request") == faulty)
    }

    /// Field bug 12: after a lost response the correct SDK asks Apple for a fresh code; the
    /// fault resends the spent one and gets `invalid_grant`.
    @Test(arguments: [false, true]) func lostExchangeResponse(faulty: Bool) async throws {
        let harness = try await harness(faulty ? [.retryAppleCode] : [])
        harness.issuer.update { $0.loseNextExchangeResponse = true }
        let error = await capture { try await harness.client.signInWithApple() }
        if faulty {
            #expect(error?.oauthError == "invalid_grant")
        } else {
            #expect(error == nil)
            let forms = exchanges(harness)
            #expect(forms.map { $0["subject_token"] } == ["apple-code-1", "apple-code-2"])
            // The second authorization had no name; the kept one was sent.
            #expect(forms.last?["user_profile"] != nil)
        }
    }

    /// Field bug 13: exchange failures keep the issuer's code, unless the fault hides it.
    @Test(arguments: [false, true]) func exchangeErrorsKeepTheirCode(faulty: Bool) async throws {
        let harness = try await harness(faulty ? [.opaqueExchangeErrors] : [])
        harness.issuer.update {
            $0.failNextExchange = .json(["error": "unauthorized_client"], status: 403)
        }
        let error = await capture { try await harness.client.signInWithApple() }
        #expect(error?.code == (faulty ? .appleAuthorizationFailed : .tokenRequestFailed))
        #expect((error?.oauthError == "unauthorized_client") == !faulty)
    }

    /// A nonce the caller asks for binds Apple's token but is not sent on the exchange.
    @Test func callerNonceIsNotSentOnTheExchange() async throws {
        let harness = try await harness()
        harness.issuer.update { $0.rejectAppleNonce = true }
        _ = try await harness.client.signInWithApple(nonce: "raw-nonce-hash")
        #expect(exchanges(harness).first?["nonce"] == nil)
    }
}
