import Device
import HTTPCore
import Issuer
import SignInSDK
import Testing
import WebAuthSession
import WorldVocabulary

@testable import Simulator

/// Whether a sign-out ended the issuer's session: proved afterwards, or said to be unproved.
@Suite struct SignOutCheckTests {
    // MARK: The verdict, from what came back and what the checks saw

    typealias Observation = SignOutCheck.Observation

    @Test(
        "the verdict the answer and the checks support",
        arguments: [
            (
                SignOutOutcome.EndSession.acknowledged,
                [Observation.noSessionInStore(error: "login_required")], SignOutCheck.Verdict.verified
            ),
            (.acknowledged, [.notChecked("interaction_required"), .loginFormShown(.plain)], .verified),
            (
                .unconfirmed("closed"), [.notChecked("ephemeral"), .refreshRefused(error: "invalid_grant")],
                .verified
            ),
            (.acknowledged, [.sessionInStore(.promptNone, "came back with a code")], .notEnded),
            (
                .unconfirmed("closed"), [.notChecked("500"), .sessionInStore(.plain, "consent page")],
                .notEnded
            ),
            (.acknowledged, [.notChecked("ephemeral"), .refreshAccepted], .acknowledged),
            (.acknowledged, [.notChecked("ephemeral"), .notChecked("no refresh token")], .acknowledged),
            (.unconfirmed("closed"), [.notChecked("ephemeral")], .unconfirmed),
            (.failed("400"), [], .failed),
            (.notRequested, [], .local),
        ])
    func verdict(
        endSession: SignOutOutcome.EndSession, observations: [Observation], expected: SignOutCheck.Verdict
    ) {
        let check = SignOutCheck(
            outcome: SignOutOutcome(endSession: endSession), observations: observations, requests: 1)
        #expect(check.verdict == expected)
        #expect(check.signedOutAtIssuer == (expected == .verified))
        // Only a proof is called "ended at the issuer".
        #expect(
            check.statement.hasPrefix("ended at the issuer") == (expected == .verified), "\(check.statement)")
    }

    /// A redirect back with the state is never enough on its own.
    @Test func anAcknowledgementAloneIsNotAProof() {
        let check = SignOutCheck(
            outcome: SignOutOutcome(endSession: .acknowledged), observations: [], requests: 0)
        #expect(!check.signedOutAtIssuer)
        #expect(check.verdict == .acknowledged)
    }

    // MARK: What a prompt=none sheet's end says

    static func ended(
        _ result: Result<String, WebAuthenticationError>, last action: WebPageVisit.Action = .reachedCallback
    )
        -> WebAuthenticationOutcome
    {
        WebAuthenticationOutcome(
            result: result,
            trace: [
                WebPageVisit(
                    method: .get, url: "https://issuer.example/authorize", status: 302, action: action)
            ])
    }

    @Test func loginRequiredMeansNoSession() {
        let outcome = Self.ended(.success("com.example.app://cb?error=login_required&state=s"))
        #expect(
            SignOutCheck.observation(of: outcome, request: .promptNone)
                == .noSessionInStore(error: "login_required"))
    }

    @Test func aCodeMeansTheSessionGoesOn() {
        let outcome = Self.ended(.success("com.example.app://cb?code=c&state=s"))
        guard case .sessionInStore = SignOutCheck.observation(of: outcome, request: .promptNone) else {
            Issue.record("a code is a session")
            return
        }
    }

    @Test(
        "errors that name a signed-in person", arguments: ["consent_required", "account_selection_required"])
    func signedInErrors(error: String) {
        let outcome = Self.ended(.success("com.example.app://cb?error=\(error)&state=s"))
        guard case .sessionInStore = SignOutCheck.observation(of: outcome, request: .promptNone) else {
            Issue.record("\(error) is a session")
            return
        }
    }

    /// `interaction_required` may mean either; it proves nothing.
    @Test func interactionRequiredProvesNothing() {
        let outcome = Self.ended(.success("com.example.app://cb?error=interaction_required&state=s"))
        guard case .notChecked = SignOutCheck.observation(of: outcome, request: .promptNone) else {
            Issue.record("interaction_required proves nothing")
            return
        }
    }

    @Test func aLoginFormMeansNoSession() {
        let outcome = Self.ended(
            .failure(WebAuthenticationError(.canceledLogin, "cancelled at the login page")), last: .canceled)
        #expect(SignOutCheck.observation(of: outcome, request: .plain) == .loginFormShown(.plain))
    }

    /// The checking person refuses consent; a consent page shown means a signed-in person, and a
    /// code with none shown (the sheet's `consent_not_shown`) too.
    @Test func consentShownOrSkippedMeansTheSessionGoesOn() {
        let denied = WebAuthenticationOutcome(
            result: .success("com.example.app://cb?error=access_denied&state=s"),
            trace: [
                WebPageVisit(
                    method: .get, url: "https://issuer.example/consent", status: 200,
                    action: .deniedConsent(button: "Deny"))
            ])
        let skipped = Self.ended(
            .failure(WebAuthenticationError(.consentNotShown, "a code and no consent page")))
        for outcome in [denied, skipped] {
            guard case .sessionInStore = SignOutCheck.observation(of: outcome, request: .promptNone) else {
                Issue.record("\(outcome) is a session")
                continue
            }
        }
    }

    // MARK: End to end against the embedded issuer

    /// A shared sheet's store is asked with prompt=none: verified.
    @Test func aSharedSheetsSignOutIsVerified() async throws {
        try await withSignedOutApp(
            profile: BehaviorProfile(faults: [.sharedWebSession]),
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ) { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            let appRequests = phone.device.network.log.count
            let check = await app.checkSignOut(try await app.signOut(callEndSession: true))
            #expect(check.verdict == .verified, "\(check.statement)")
            #expect(check.observations == [.noSessionInStore(error: "login_required")])
            #expect(check.requests == 1)
            // The check's requests are not the app's.
            #expect(phone.device.network.log.count == appRequests + 1, "only the logout itself")
            #expect(phone.device.network.checkLog.count == 1)
        }
    }

    /// prompt=none carries the app's last ID token as `id_token_hint`; an issuer whose answer to
    /// it says nothing (an error page here) gets the same request without `prompt`, whose login
    /// form proves the sign-out.
    @Test func anUnclearPromptNoneFallsBackToTheLoginForm() async throws {
        try await withSignedOutApp(
            profile: BehaviorProfile(faults: [.sharedWebSession]),
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ) { world, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            let record = try await app.signOut(callEndSession: true)
            try world.identity?.issuer.inject(
                FaultInjection(fault: .htmlErrorPage, path: "/authorize", status: 500))
            let check = await app.checkSignOut(record)
            #expect(check.verdict == .verified, "\(check.statement)")
            #expect(check.observations.last == .loginFormShown(.plain))
            let first = try #require(phone.device.network.checkLog.first)
            let query = try URLParts.queryParameters(of: first.request.url)
            #expect(query["prompt"] == "none")
            #expect(query["id_token_hint"] == session.idToken)
            #expect(
                try URLParts.queryParameters(of: phone.device.network.checkLog[1].request.url)["prompt"]
                    == nil)
        }
    }

    /// `logout-ends-nothing`: the redirect comes back with the state, and prompt=none still gets
    /// a code.
    @Test func aLogoutThatEndsNothingIsCaught() async throws {
        try await withSignedOutApp(
            profile: BehaviorProfile(faults: [.sharedWebSession]),
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ) { world, _, app in
            _ = try await app.perform { try await $0.signIn() }
            try world.identity?.issuer.inject(FaultInjection(fault: .logoutEndsNothing))
            let record = try await app.signOut(callEndSession: true)
            #expect(record.outcome.endSession == .acknowledged)
            let check = await app.checkSignOut(record)
            #expect(check.verdict == .notEnded, "\(check.statement)")
            #expect(!check.signedOutAtIssuer)
        }
    }

    /// An ephemeral sheet leaves no store to ask: the refresh token the app held is tried, and
    /// the embedded issuer (which ends browser sessions, not grants) still honours it.
    @Test func anEphemeralSheetsSignOutTriesTheRefreshToken() async throws {
        try await withSignedOutApp(postLogoutRedirectURI: "com.example.app://auth/logout") { _, _, app in
            _ = try await app.perform { try await $0.signIn() }
            let check = await app.checkSignOut(try await app.signOut(callEndSession: true))
            #expect(check.verdict == .acknowledged, "\(check.statement)")
            #expect(check.observations.last == .refreshAccepted)
            #expect(check.observations.first.map { if case .notChecked = $0 { true } else { false } } == true)
        }
    }

    /// A refresh token the issuer no longer honours proves the grant ended.
    @Test func aRefusedRefreshTokenIsAProof() async throws {
        try await withSignedOutApp(postLogoutRedirectURI: "com.example.app://auth/logout") {
            world, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            let identity = try #require(world.identity)
            let revocation = HTTPRequest(
                method: .post, url: identity.issuerURL + "/oauth/revoke",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: FormURLEncoding.encodedBytes([
                    "token": try #require(session.refreshToken), "client_id": "com.example.app",
                ]))
            #expect(try await phone.device.network.send(revocation).status == 200)
            let check = await app.checkSignOut(try await app.signOut(callEndSession: true))
            #expect(check.verdict == .verified, "\(check.statement)")
            #expect(check.observations.last == .refreshRefused(error: "invalid_grant"))
        }
    }

    /// A check uses up no network fault a later step armed, and stays out of the app's log.
    @Test func aCheckMeetsNoNetworkFault() async throws {
        try await withSignedOutApp(
            profile: BehaviorProfile(faults: [.sharedWebSession]),
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ) { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            let record = try await app.signOut(callEndSession: true)
            phone.device.network.injectStatus(503, forNext: 1)
            let check = await app.checkSignOut(record)
            #expect(check.verdict == .verified, "\(check.statement)")
            // The fault is still armed for the app's next request.
            let response = try await phone.device.network.send(
                HTTPRequest(url: app.configuration.options.issuer))
            #expect(response.status == 503)
        }
    }
}
