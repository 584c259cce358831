import Device
import HTTPCore
import Issuer
import JSON
import SignInSDK
import Simulator
import Testing
import WebAuthSession
import WorldVocabulary

/// The web flow of a simulated app against the embedded issuer over loopback.
@Suite struct WebSignInEndToEndTests {
    /// Sign-in, refresh and sign-out end to end; the session lands in the keychain.
    @Test func signInRefreshSignOut() async throws {
        try await withSignedOutApp(postLogoutRedirectURI: "com.example.app://auth/logout") {
            world, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            #expect(session.claims["email"]?.stringValue == "alice@example.com")
            #expect(session.refreshToken != nil)
            let items = phone.device.keychain.dump()
            #expect(items.map(\.key.account) == [SignInClient.credentialsKey])
            #expect(items.first?.accessibility == .afterFirstUnlockThisDeviceOnly)
            world.advance(by: 3600 - 30)
            let refreshed = try #require(try await app.perform { try await $0.getSession() })
            #expect(refreshed.accessToken != session.accessToken)
            #expect(refreshed.refreshToken != session.refreshToken)
            #expect(try await app.perform { try await $0.signOut() }.endSession == .acknowledged)
            #expect(phone.device.keychain.count == 0)
        }
    }

    /// A wrong password ends in a web-session failure naming the login page's error.
    @Test func wrongPasswordFails() async throws {
        try await withSignedOutApp { _, phone, app in
            app.webUser = .signIn(username: "alice@example.com", password: "nope")
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect(error?.code == .webSessionFailed)
            #expect(error?.message.contains("login_rejected") == true)
            #expect(phone.device.keychain.count == 0)
        }
    }

    /// Denying consent comes back as `access_denied`.
    @Test func denyingConsentIsAccessDenied() async throws {
        try await withSignedOutApp { _, _, app in
            app.webUser = WebUserScript.signIn(
                username: "alice@example.com", password: "alice-password", consent: .deny)
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect(error?.code == .authorizationDenied && error?.oauthError == "access_denied")
        }
    }

    /// Offline: the sign-in fails with a transport error and stores nothing.
    @Test func offlineSignInFails() async throws {
        try await withSignedOutApp { _, phone, app in
            phone.device.network.setOffline(true)
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect(error?.code == .webSessionFailed || error?.code == .transport)
            #expect(phone.device.keychain.count == 0)
        }
    }

    /// A captive portal answering HTML where JSON is expected: a clear error, nothing stored.
    @Test func captivePortalIsAClearError() async throws {
        try await withSignedOutApp { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            phone.device.network.setCaptivePortal(CaptivePortal())
            let error = await signInError {
                try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            }
            #expect(error?.code == .invalidTokenResponse)
            phone.device.network.setCaptivePortal(nil)
            #expect(try await app.perform { try await $0.getSession() } != nil)
        }
    }

    /// DPoP end to end: tokens bound to the device key, the key kept in the keychain.
    @Test func dpopBindsTheTokens() async throws {
        try await withSignedOutApp(usesDPoP: true) { _, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            #expect(session.tokenType == "DPoP")
            _ = try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            let info = try await app.perform { try await $0.userInfo() }
            #expect(info["email"]?.stringValue == "alice@example.com")
            #expect(phone.device.keychain.dump().map(\.key.account).contains(SignInClient.dpopKeyKey))
        }
    }
}

/// DPoP with a server nonce required: the SDK retries once with the issuer's `DPoP-Nonce`.
@Suite struct DPoPNonceEndToEndTests {
    @Test func signInRetriesWithTheServerNonce() async throws {
        var tenant = Tenant.default
        tenant.requireDPoPNonce = true
        try await withSignedOutApp(tenant: tenant, usesDPoP: true) { _, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            #expect(session.tokenType == "DPoP")
            let tokenRequests = phone.device.network.log.filter { $0.request.path == "/oauth/token" }
            #expect(tokenRequests.count == 2)  // use_dpop_nonce, then the retry with the nonce
            _ = try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
        }
    }
}

/// DPoP on a phone whose clock is 9 minutes off (RFC 9449 §11.1): the issuer refuses the
/// proof's `iat`, and its `Date` tells the SDK why.
@Suite struct DPoPClockSkewEndToEndTests {
    static func tokenRequests(_ phone: SimulatedPhone) -> Int {
        phone.device.network.log.filter { $0.request.path == "/oauth/token" }.count
    }

    /// The default SDK keeps its clock: the sign-in fails with an error of its own that names
    /// the skew and the server's `Date`, and nothing is stored.
    @Test(arguments: [Int64(540), -540]) func deviceClockIsNamed(skew: Int64) async throws {
        try await withSignedOutApp(skew: skew, usesDPoP: true) { world, phone, app in
            let error = await signInError { try await app.perform { try await $0.signIn() } }
            #expect(error?.code == .dpopClockSkew)
            #expect(error?.oauthError == "invalid_dpop_proof")
            let date = HTTPDate.format(world.scheduler.wallClock.now())
            let comparison = skew > 0 ? "540 s ahead of" : "540 s behind"
            #expect(
                error?.message.contains("the device clock is \(comparison) the server's (Date: \(date))")
                    == true)
            #expect(Self.tokenRequests(phone) == 1)
            #expect(
                phone.device.keychain.dump().map(\.key.account).contains(SignInClient.credentialsKey) == false
            )
        }
    }

    /// `dpop-server-date` stamps the retry with the server's time, once, and keeps the offset
    /// for the next proofs: the refresh and UserInfo need one request each.
    @Test func serverDateCorrectsTheProof() async throws {
        try await withSignedOutApp(
            profile: try BehaviorProfile(named: "dpop-server-date"), skew: 540, usesDPoP: true
        ) { _, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            #expect(session.tokenType == "DPoP")
            #expect(Self.tokenRequests(phone) == 2)
            _ = try await app.perform { try await $0.getAccessToken(forceRefresh: true) }
            #expect(Self.tokenRequests(phone) == 3)
            let info = try await app.perform { try await $0.userInfo() }
            #expect(info["email"]?.stringValue == "alice@example.com")
            #expect(phone.device.network.log.filter { $0.request.path == "/userinfo" }.count == 1)
        }
    }

    /// A clock that goes off after sign-in shows first at UserInfo (401 `invalid_dpop_proof`):
    /// the default SDK names the skew, `dpop-server-date` corrects it and retries once.
    @Test(arguments: [false, true]) func userInfoAfterTheClockMoved(correcting: Bool) async throws {
        try await withSignedOutApp(
            profile: try BehaviorProfile(named: correcting ? "dpop-server-date" : "default"), usesDPoP: true
        ) { _, phone, app in
            _ = try await app.perform { try await $0.signIn() }
            phone.device.clock.setSkew(-540)
            let error = await signInError { try await app.perform { try await $0.userInfo() } }
            #expect(error?.code == (correcting ? nil : .dpopClockSkew))
            #expect(error?.message.contains("userinfo refused the DPoP proof") ?? correcting)
            #expect(error?.message.contains("540 s behind the server's") ?? correcting)
            let userInfoRequests = phone.device.network.log.filter { $0.request.path == "/userinfo" }.count
            #expect(userInfoRequests == (correcting ? 2 : 1))
        }
    }

    /// An issuer that requires nonces judges the proof's age by the nonce: the default SDK's
    /// retry with the server's nonce (RFC 9449 §8) is all a skewed phone needs.
    @Test func serverNonceMakesTheSkewHarmless() async throws {
        var tenant = Tenant.default
        tenant.requireDPoPNonce = true
        try await withSignedOutApp(tenant: tenant, skew: 540, usesDPoP: true) { _, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            #expect(session.tokenType == "DPoP")
            #expect(Self.tokenRequests(phone) == 2)  // use_dpop_nonce, then the retry with the nonce
            let info = try await app.perform { try await $0.userInfo() }
            #expect(info["email"]?.stringValue == "alice@example.com")
        }
    }
}

/// UserInfo answers are used only for the signed-in subject (OpenID Connect Core §5.3.2).
@Suite struct UserInfoEndToEndTests {
    @Test func userInfoForAnotherSubjectIsRefused() async throws {
        try await withSignedOutApp { world, _, app in
            _ = try await app.perform { try await $0.signIn() }
            let claims = try await app.perform { try await $0.userInfo() }
            #expect(claims["email"]?.stringValue == "alice@example.com")
            try world.identity!.issuer.inject(FaultInjection(fault: .userInfoBadSubject))
            let error = await signInError { try await app.perform { try await $0.userInfo() } }
            #expect(error?.code == .invalidTokenResponse)
            #expect(error?.message.contains("not the ID token's") == true)
        }
    }
}
