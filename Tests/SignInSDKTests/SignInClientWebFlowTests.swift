import HTTPCore
import JSON
import Locking
import SignInSDK
import Testing

@Suite struct SignInClientWebFlowTests {
    /// A sign-in stores a verified session and consumes the pending record.
    @Test func signInStoresAVerifiedSession() async throws {
        let harness = try await SDKHarness().configured()
        let session = try await harness.client.signIn()
        #expect(session.subject == "user-1")
        #expect(session.refreshToken != nil)
        #expect(harness.storage.keys == [SignInClient.credentialsKey])
        #expect(harness.issuer.requests == ["discovery", "token:authorization_code", "jwks"])
    }

    /// The authorize URL carries every parameter the SDK owns (docs/sdk.md), and the caller's.
    @Test func authorizeURLCarriesTheReservedParameters() async throws {
        let harness = try await SDKHarness().configured()
        _ = try await harness.client.signIn(
            options: SignInRequestOptions(prompt: "login", additionalParameters: ["ui": "x"]))
        let url = try #require(harness.agent.presented.withLock { $0.first?.url })
        let query = try FormURLEncoding.decode(try #require(URLParts(url)?.query))
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "com.example.app")
        #expect(query["redirect_uri"] == "com.example.app://auth/callback")
        #expect(query["scope"] == "openid profile email offline_access")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query.values(for: "state").count == 1)
        #expect(query["state"]?.utf8.count == 43 && query["nonce"]?.utf8.count == 43)
        #expect(query["code_challenge"]?.utf8.count == 43)
        #expect(query["prompt"] == "login" && query["ui"] == "x")
        #expect(harness.agent.presented.withLock { $0.first?.prefersEphemeralSession } == true)
    }

    /// A callback whose state matches no pending sign-in is refused before any exchange.
    @Test func unknownStateIsRefused() async throws {
        let harness = try await SDKHarness().configured()
        let error = await capture {
            try await harness.client.handleRedirect(
                url: "com.example.app://auth/callback?code=x&state=forged&iss=https%3A%2F%2Fissuer.test%2F")
        }
        #expect(error?.code == .stateMismatch)
        #expect(harness.issuer.count("token:authorization_code") == 0)
    }

    /// A callback replayed after a successful sign-in finds its record consumed.
    @Test func replayedCallbackIsRefused() async throws {
        let harness = try await SDKHarness().configured()
        let seen = Recorded()
        harness.agent.behavior.withLock {
            $0 = .callback({ url in
                seen.set(url)
                return url
            })
        }
        _ = try await harness.client.signIn()
        let error = await capture { try await harness.client.handleRedirect(url: seen.value!) }
        #expect(error?.code == .stateMismatch)
    }

    /// A callback without state is refused.
    @Test func missingStateIsRefused() async throws {
        let harness = try await SDKHarness().configured()
        let error = await capture {
            try await harness.client.handleRedirect(url: "com.example.app://auth/callback?code=x")
        }
        #expect(error?.code == .missingState)
    }

    /// Field bug 8: an error response without state is the issuer's error, unless the fault is on.
    @Test(arguments: [false, true]) func errorWithoutState(faulty: Bool) async throws {
        let profile = faulty ? BehaviorProfile(faults: [.errorWithoutStateIsStateError]) : .default
        let harness = try await SDKHarness(profile: profile).configured()
        let error = await capture {
            try await harness.client.handleRedirect(
                url: "com.example.app://auth/callback?error=access_denied")
        }
        #expect(error?.code == (faulty ? .missingState : .authorizationDenied))
        #expect(faulty || error?.oauthError == "access_denied")
    }

    /// Field bug 8: a callback with no response at all (lost on the way) is reported as such;
    /// the faulty SDK calls it a state error. Nothing is exchanged either way.
    @Test(arguments: [false, true]) func lostResponse(faulty: Bool) async throws {
        let profile = faulty ? BehaviorProfile(faults: [.errorWithoutStateIsStateError]) : .default
        let harness = try await SDKHarness(profile: profile).configured()
        let error = await capture {
            try await harness.client.handleRedirect(url: "com.example.app://auth/callback")
        }
        #expect(error?.code == (faulty ? .missingState : .invalidCallback))
        #expect(harness.issuer.count("token:authorization_code") == 0)
    }

    /// RFC 9207: with the issuer advertising `iss`, a callback with another or no `iss` is refused.
    @Test(arguments: ["https://evil.test/", nil]) func callbackIssuerIsChecked(iss: String?) async throws {
        let harness = try await SDKHarness().configured()
        harness.agent.behavior.withLock {
            $0 = .callback({ url in
                var parts = URLParts(url)!
                var query = try! FormURLEncoding.decode(parts.query ?? "")
                query = FormParameters(query.pairs.filter { $0.name != "iss" })
                if let iss { query.append("iss", iss) }
                parts.query = FormURLEncoding.encode(query)
                return "com.example.app://auth/callback?" + parts.query!
            })
        }
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .issuerMismatch)
        #expect(harness.storage.keys.isEmpty)
    }

    /// An error response without `iss` is still the issuer's error (no code to protect).
    @Test func errorResponseWithoutIssIsTheError() async throws {
        let harness = try await SDKHarness().configured()
        harness.agent.behavior.withLock {
            $0 = .callback({ url in
                let state = try! FormURLEncoding.decode(URLParts(url)!.query!)["state"]!
                return "com.example.app://auth/callback?error=access_denied&state=\(state)"
            })
        }
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .authorizationDenied && error?.oauthError == "access_denied")
    }

    /// Without the RFC 9207 advertisement, a callback without `iss` is fine.
    @Test func callbackWithoutIssIsFineWhenNotAdvertised() async throws {
        let issuer = FakeIssuer()
        issuer.update { $0.advertisesIss = false }
        let harness = try await SDKHarness(issuer: issuer).configured()
        #expect(try await harness.client.signIn().subject == "user-1")
    }

    /// A callback for another redirect URI is refused.
    @Test func callbackForAnotherRedirectURIIsRefused() async throws {
        let harness = try await SDKHarness().configured()
        let error = await capture {
            try await harness.client.handleRedirect(url: "com.evil.app://auth/callback?code=x&state=y")
        }
        #expect(error?.code == .invalidCallback)
    }

    /// Field bug 7: a cancel is `canceledLogin`, unless the fault misreads it.
    @Test(arguments: [false, true]) func cancel(faulty: Bool) async throws {
        let harness = try await SDKHarness(
            profile: faulty ? BehaviorProfile(faults: [.misreadCancel]) : .default
        )
        .configured()
        harness.agent.behavior.withLock { $0 = .cancel }
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == (faulty ? .webSessionFailed : .canceledLogin))
    }

    /// Field bug 7, the other half: with cancelNeverResolves a swiped-away sheet leaves the call
    /// waiting (it has not returned well after the sheet was dismissed) until its task is
    /// cancelled, as killing the app does.
    @Test func cancelNeverResolves() async throws {
        let harness = try await SDKHarness(profile: BehaviorProfile(faults: [.cancelNeverResolves]))
            .configured()
        harness.agent.behavior.withLock { $0 = .cancel }
        let finished = Mutex(false)
        let call = Task {
            defer { finished.withLock { $0 = true } }
            return try await harness.client.signIn()
        }
        try #require(await harness.agent.waitForSheet(), "the sign-in never presented its sheet")
        try await Task.sleep(for: .milliseconds(100))
        #expect(!finished.withLock { $0 })
        call.cancel()
        let error = await capture { try await call.value }
        #expect(error?.code == .canceledLogin)
        #expect(finished.withLock { $0 })
    }

    /// Field bug 5: a sheet that never called back blocks the next sign-in only with the fault.
    @Test(arguments: [false, true]) func staleTransaction(faulty: Bool) async throws {
        let harness = try await SDKHarness(
            profile: faulty ? BehaviorProfile(faults: [.staleTransaction]) : .default
        )
        .configured()
        harness.agent.behavior.withLock { $0 = .hang }
        let first = Task { try await harness.client.signIn() }
        try #require(await harness.agent.waitForSheet(), "the sign-in never presented its sheet")
        harness.agent.behavior.withLock { $0 = .complete }
        let second = await capture { try await harness.client.signIn() }
        if faulty {
            #expect(second?.code == .transactionActiveAlready)
            harness.agent.cancelActiveSession()
        } else {
            #expect(second == nil)
        }
        let firstError = await capture { try await first.value }
        #expect(firstError?.code == .canceledLogin)
    }

    /// Field bug 6: with no foreground-active scene the correct SDK waits; the fault fails (error 3).
    @Test(arguments: [false, true]) func presentationWhileInactive(faulty: Bool) async throws {
        let harness = try await SDKHarness(
            profile: faulty ? BehaviorProfile(faults: [.presentWhileInactive]) : .default
        ).configured()
        harness.agent.setPresentable(false)
        let signIn = Task { await capture { try await harness.client.signIn() } }
        if !faulty {
            // The scene becomes active only once the SDK waits for it.
            let waited = await harness.agent.changes.wait(
                until: { harness.agent.presentableWaits.withLock { $0 } > 0 }, deadline: .now + .seconds(10))
            #expect(waited, "the SDK never waited for the scene to become presentable")
            harness.agent.setPresentable(true)
        }
        let error = await signIn.value
        #expect(error?.code == (faulty ? .presentationFailed : nil))
    }

    /// The ID token is verified before anything is stored; the fault stores first.
    @Test(arguments: [false, true]) func verifyBeforePersist(faulty: Bool) async throws {
        let harness = try await SDKHarness(
            profile: faulty ? BehaviorProfile(faults: [.persistBeforeVerify]) : .default
        ).configured()
        harness.issuer.update { $0.claimOverrides["nonce"] = "someone-elses" }
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .idTokenInvalid)
        #expect(harness.storage.keys.isEmpty == !faulty)
    }

    /// An ID token that is not even a JWT is refused before anything is stored, with the
    /// fault too: there are no claims to build a session from.
    @Test(arguments: [false, true]) func anUnreadableIDTokenIsNeverStored(faulty: Bool) async throws {
        let harness = try await SDKHarness(
            profile: faulty ? BehaviorProfile(faults: [.persistBeforeVerify]) : .default
        ).configured()
        harness.issuer.update {
            $0.failNextToken = .json([
                "access_token": "at", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt",
                "id_token": "not-a-jwt",
            ])
        }
        let error = await capture { try await harness.client.signIn() }
        #expect(error?.code == .idTokenInvalid)
        #expect(harness.storage.keys.isEmpty)
    }

    /// Discovery naming another issuer is refused (OpenID Connect Discovery §4.3).
    @Test func discoveryForAnotherIssuerIsRefused() async throws {
        let issuer = FakeIssuer()
        let harness = SDKHarness(issuer: issuer)
        var options = harness.options
        options.issuer = "https://other.test"
        let error = await capture { try await harness.client.configure(options: options) }
        #expect(error?.code == .discoveryFailed)
    }
}

/// Runs `body` and returns the `SignInError` it threw, or `nil`.
func capture<T>(_ body: () async throws -> T) async -> SignInError? {
    do {
        _ = try await body()
        return nil
    } catch let error as SignInError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// A value set from a `@Sendable` closure.
final class Recorded: Sendable {
    private let stored = Mutex<String?>(nil)
    func set(_ value: String) { stored.withLock { $0 = value } }
    var value: String? { stored.withLock { $0 } }
}
