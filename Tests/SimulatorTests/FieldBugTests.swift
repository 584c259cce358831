import AppleID
import Device
import HTTPCore
import Issuer
import JSON
import SignInSDK
import Simulator
import TestSupport
import Testing
import WebAuthSession

/// One test per field bug of docs/field-bugs.md, on a simulated phone against the embedded issuer: the
/// faulty profile shows the failure the field reported, the default profile does not.
///
/// Row 3 (a refresh response without `refresh_token`) needs a client without rotation: it runs
/// as `scenarios/field-bugs/03-refresh-without-refresh-token.yaml`, against a scripted issuer in
/// `SignInSDKTests.RefreshTests` and against oidc-provider-mock in `scripts/interop/web-flow.sh`.
@Suite struct FieldBugTests {
    static let both = [false, true]

    func profile(_ faulty: Bool, _ fault: BehaviorProfile.KnownFault) -> BehaviorProfile {
        faulty ? BehaviorProfile(faults: [fault]) : .default
    }

    /// Row 1: two concurrent refreshes; naive loses the session to reuse detection. The race is
    /// built, not hoped for (as in `scenarios/field-bugs/01-refresh-rotation-race.yaml`): the
    /// first refresh is held at the issuer and the second call starts once it has left.
    @Test(arguments: both) func row1RefreshRotationRace(faulty: Bool) async throws {
        let profile = faulty ? BehaviorProfile(refreshStrategy: .naive) : .default
        try await withSignedOutApp(profile: profile) { world, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            try world.identity!.issuer.inject(
                FaultInjection(fault: .delay, path: "/oauth/token", delayMilliseconds: 1000))
            let network = phone.device.network
            let tokenRequestsBefore = network.sentCount(path: "/oauth/token")
            async let a = signInError {
                try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            }
            async let b = signInError {
                try await network.sent.wait(for: "the first refresh's token request") {
                    network.sentCount(path: "/oauth/token") > tokenRequestsBefore
                }
                return try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            }
            let (first, second) = await (a, b)
            let after = await signInError {
                try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            }
            if faulty {
                // The second refresh rotated the token; the first arrived as a replay.
                #expect(first?.code == .sessionExpired)
                #expect(second == nil)
                #expect(after != nil)
            } else {
                #expect(first == nil && second == nil && after == nil)
                let refreshes = network.log.filter {
                    $0.request.path == "/oauth/token"
                        && String(decoding: $0.request.body, as: UTF8.self).contains(
                            "grant_type=refresh_token")
                }
                #expect(refreshes.count == 2)  // one shared by the race, one after
            }
        }
    }

    /// Row 2: the app is killed after a refresh the faulty SDK had not written yet.
    @Test(arguments: both) func row2KilledMidRenewal(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .persistLate)) { _, _, app in
            _ = try await app.perform { try await $0.signIn() }
            _ = try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            try app.terminate()
            try await app.launch()
            let error = await signInError {
                try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            }
            #expect((error?.code == .sessionExpired) == faulty)
        }
    }

    /// Row 4: a prewarmed launch before the first unlock; the faulty SDK reads "signed out".
    @Test(arguments: both) func row4KeychainBeforeFirstUnlock(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .keychainErrorSignsOut)) { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            try phone.reboot()
            try await app.launch(.prewarm)
            let early = await signInError { try await app.perform { try await $0.getSession() } }
            let seenSignedOut = try? await app.perform { try await $0.getSession() == nil }
            if faulty {
                #expect(early == nil && seenSignedOut == true)
            } else {
                #expect(early?.code == .storage)
                try phone.unlock()
                #expect(try await app.perform { try await $0.getSession() } != nil)
            }
        }
    }

    /// Row 5: the sheet was lost to backgrounding; the faulty SDK blocks the next sign-in.
    @Test(arguments: both) func row5StaleWebTransaction(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .staleTransaction)) { _, _, app in
            app.webUser = .signIn(
                username: "alice@example.com", password: "alice-password", interruption: .abandon(at: .login))
            let first = Task { await signInError { try await app.perform { try await $0.signIn() } } }
            try await app.sheetChanges.wait(for: "the first sign-in's sheet") {
                app.lastWebTrace.isEmpty == false || app.isPresentingSheet
            }
            try app.background()
            try app.foreground()
            app.webUser = .alice
            let second = await signInError { try await app.perform { try await $0.signIn() } }
            if faulty {
                #expect(second?.code == .transactionActiveAlready)
                try app.terminate()
            } else {
                #expect(second == nil)
                #expect(await first.value?.code == .canceledLogin)
            }
        }
    }

    /// Row 6: signing in while the app is not foreground-active; the correct SDK waits for it.
    @Test(arguments: both) func row6PresentationFromInactiveScene(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .presentWhileInactive)) { _, _, app in
            try app.background()
            let attempt = Task { await signInError { try await app.perform { try await $0.signIn() } } }
            if faulty {
                // The faulty SDK presents at once from the background scene and fails.
                #expect(await attempt.value?.code == .presentationFailed)
                #expect(app.presentationWaits == 0)
            } else {
                // The correct SDK holds the sign-in until the scene is foreground-active again.
                try await poll(until: "the SDK to wait for the scene") { app.presentationWaits == 1 }
                #expect(app.isPresentingSheet == false)
                try app.foreground()
                #expect(await attempt.value == nil)
            }
        }
    }

    /// Row 7: the user closes the sheet; the faulty SDK reports an unexplained failure.
    @Test(arguments: both) func row7Cancel(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .misreadCancel)) { _, _, app in
            app.webUser = .signIn(
                username: "alice@example.com", password: "alice-password", interruption: .cancel(at: .login))
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect(error?.code == (faulty ? .webSessionFailed : .canceledLogin))
        }
    }

    /// Row 8: an error callback without `state` is the issuer's error, not a state error.
    @Test(arguments: both) func row8ErrorWithoutState(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .errorWithoutStateIsStateError)) { _, _, app in
            let error = await signInError {
                try await app.perform {
                    try await $0.handleRedirect(
                        url: "com.example.app://auth/callback?error=temporarily_unavailable")
                }
            }
            #expect(error?.code == (faulty ? .missingState : .authorizationDenied))
        }
    }

    /// Row 8: a callback whose response was lost (no query) is reported as lost, not as a
    /// state error.
    @Test(arguments: both) func row8LostResponse(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .errorWithoutStateIsStateError)) { _, _, app in
            let error = await signInError {
                try await app.perform { try await $0.handleRedirect(url: "com.example.app://auth/callback") }
            }
            #expect(error?.code == (faulty ? .missingState : .invalidCallback))
        }
    }

    /// Row 8: the issuer's post-logout redirect drops the `state`; the faulty SDK fails the
    /// sign-out and the session stays in the keychain.
    @Test(arguments: both) func row8LogoutWithoutState(faulty: Bool) async throws {
        try await withSignedOutApp(
            profile: profile(faulty, .logoutStateRequired),
            postLogoutRedirectURI: "com.example.app://auth/logout"
        ) { world, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            try world.identity!.issuer.inject(FaultInjection(fault: .logoutWithoutState))
            let error = await signInError { _ = try await app.perform { try await $0.signOut() } }
            #expect(error?.code == (faulty ? .missingState : nil))
            #expect(phone.device.keychain.count == (faulty ? 1 : 0))
        }
    }

    /// Row 9: the device clock is 5 minutes behind; strict clock checks reject every ID token.
    @Test(arguments: both) func row9ClockSkew(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .strictClock), skew: -300) { _, _, app in
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect((error?.code == .idTokenInvalid) == faulty)
        }
    }

    /// Row 10: Apple gives the name once; the faulty SDK never sends it and it is lost.
    @Test(arguments: both) func row10AppleNameLost(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .neverSendUserProfile)) { _, phone, app in
            phone.appleAccount = .alice
            let session = try await app.perform { try await $0.signInWithApple() }
            #expect((session.claims["given_name"]?.stringValue == "Alice") == !faulty)
        }
    }

    /// Row 11: a nonce on Auth0's native Apple path is refused by a connection that rejects it.
    @Test(arguments: both) func row11NonceOnNativeApple(faulty: Bool) async throws {
        var tenant = Tenant.default
        for index in tenant.connections.indices { tenant.connections[index].apple.rejectNonce = true }
        try await withSignedOutApp(profile: profile(faulty, .nonceOnAppleExchange), tenant: tenant) {
            _, phone, app in
            phone.appleAccount = .alice
            let error = await signInError { try await app.perform { try await $0.signInWithApple() } }
            #expect((error?.oauthError == "invalid_request") == faulty)
            #expect((error == nil) == !faulty)
        }
    }

    /// Row 12: the exchange's response is lost; resending the spent Apple code fails.
    @Test(arguments: both) func row12AppleCodeSingleUse(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .retryAppleCode)) { _, phone, app in
            phone.appleAccount = .alice
            phone.device.network.loseResponses(ofNext: 1, matching: RequestMatch(pathPrefix: "/oauth/token"))
            let error = await signInError { try await app.perform { try await $0.signInWithApple() } }
            #expect((error?.oauthError == "invalid_grant") == faulty)
            #expect((error == nil) == !faulty)
        }
    }

    /// Row 13: a client not allowed to exchange; the faulty SDK hides the issuer's reason.
    @Test(arguments: both) func row13ExchangePolicyFailure(faulty: Bool) async throws {
        var tenant = Tenant.default
        for index in tenant.clients.indices {
            tenant.clients[index].grantTypes.remove("urn:ietf:params:oauth:grant-type:token-exchange")
        }
        try await withSignedOutApp(profile: profile(faulty, .opaqueExchangeErrors), tenant: tenant) {
            _, phone, app in
            phone.appleAccount = .alice
            let error = await signInError { try await app.perform { try await $0.signInWithApple() } }
            #expect(error != nil)
            #expect((error?.oauthError != nil) == !faulty)
        }
    }

    /// Row 14: with a shared session and a sign-out the browser never sees, the issuer cookie
    /// survives sign-out, and the next sign-in silently returns the previous user instead of
    /// asking.
    @Test(arguments: both) func row14SSOCookieSurvivesSignOut(faulty: Bool) async throws {
        let faults: Set<BehaviorProfile.KnownFault> = faulty ? [.sharedWebSession, .backChannelLogout] : []
        try await withSignedOutApp(profile: BehaviorProfile(faults: faults)) { _, _, app in
            _ = try await app.perform { try await $0.signIn() }
            try await app.perform { try await $0.signOut() }
            app.webUser = .bob
            let second = try await app.perform { try await $0.signIn() }
            let email = second.claims["email"]?.stringValue
            #expect(email == (faulty ? "alice@example.com" : "bob@example.com"))
        }
    }

    /// Row 14's cure for a shared session: the sign-out goes through the web sheet, with the
    /// browser's cookie, so the issuer ends the session; only the back-channel sign-out leaves
    /// it. (With the ephemeral default there is nothing to end.)
    @Test(arguments: both) func row14SharedSessionSignOutInTheSheet(backChannel: Bool) async throws {
        let faults: Set<BehaviorProfile.KnownFault> =
            backChannel ? [.sharedWebSession, .backChannelLogout] : [.sharedWebSession]
        try await withSignedOutApp(profile: BehaviorProfile(faults: faults)) { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            #expect(!phone.browser.cookieJar.cookies().isEmpty)
            try await app.perform { try await $0.signOut() }
            #expect(phone.browser.cookieJar.cookies().isEmpty == !backChannel)
            app.webUser = .bob
            let second = try await app.perform { try await $0.signIn() }
            #expect(
                second.claims["email"]?.stringValue == (backChannel ? "alice@example.com" : "bob@example.com")
            )
        }
    }

    /// Row 15: the app configures the issuer with a trailing slash; exact comparison rejects it.
    @Test(arguments: both) func row15IssuerStringMismatch(faulty: Bool) async throws {
        try await withSignedOutApp(
            profile: profile(faulty, .exactIssuerMatch), issuerSuffix: "/"
        ) { _, _, app in
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect((error?.code == .discoveryFailed) == faulty)
        }
    }

    /// Row 16: after a reinstall the faulty SDK finds the previous installation's session.
    @Test(arguments: both) func row16ReinstallResurrectsSession(faulty: Bool) async throws {
        try await withSignedOutApp(profile: profile(faulty, .keepKeychainOnReinstall)) { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            try app.reinstall()
            try await app.launch()
            let session = try await app.perform { try await $0.getSession() }
            #expect((session != nil) == faulty)
            #expect(phone.device.keychain.count == (faulty ? 1 : 0))
        }
    }
}
