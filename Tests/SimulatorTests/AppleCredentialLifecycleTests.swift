import AppleID
import SignInSDK
import Simulator
import Testing

/// The Sign in with Apple lifecycle on a simulated phone: the SDK's Apple port asks the
/// simulated Apple for the credential state, and the device posts the revocation notification
/// to the app's running process only.
@Suite struct AppleCredentialLifecycleTests {
    /// The app's SDK reads Apple's state for its user through the device: `authorized` after the
    /// sign-in, `revoked` once Apple revoked it (the session is then cleared), and the request
    /// went to Apple's credential-state endpoint.
    @Test func getCredentialStateAsksTheSimulatedApple() async throws {
        try await withSignedOutApp { world, phone, app in
            let apple = try #require(world.identity?.apple)
            phone.appleAccount = .alice
            let session = try await app.perform { try await $0.signInWithApple() }
            #expect(session.appleUserID != nil)
            #expect(try await app.perform { try await $0.getCredentialState() } == .authorized)
            #expect(
                apple.endAuthorization(
                    email: AppleIDAccount.alice.email, bundleID: app.bundleID, as: .revoked))
            #expect(try await app.perform { try await $0.getCredentialState() } == .revoked)
            #expect(app.hasStoredCredentials() == false)
            let asked = world.exchangeLog.all.filter {
                $0.source == "apple" && $0.request.path.hasSuffix(AppleIDProvider.Path.adminCredentialState)
            }
            #expect(asked.count == 2)
        }
    }

    /// After an app transfer the user id the session holds reads `transferred`; the session
    /// stays.
    @Test func aTransferIsReported() async throws {
        try await withSignedOutApp { world, phone, app in
            let apple = try #require(world.identity?.apple)
            phone.appleAccount = .alice
            _ = try await app.perform { try await $0.signInWithApple() }
            #expect(apple.transferApp(bundleID: app.bundleID, toTeam: "NEWTEAM001") == 1)
            #expect(try await app.perform { try await $0.getCredentialState() } == .transferred)
            #expect(app.hasStoredCredentials() == true)
        }
    }

    /// A running app is notified and signs the Apple user out before the post returns.
    @Test func aRunningAppIsNotified() async throws {
        try await withSignedOutApp { _, phone, app in
            phone.appleAccount = .alice
            _ = try await app.perform { try await $0.signInWithApple() }
            #expect(await phone.postAppleCredentialRevoked(bundleID: app.bundleID))
            #expect(app.hasStoredCredentials() == false)
        }
    }

    /// An app that is not running is not told: its session stays until its next launch asks
    /// Apple. The relaunched process observes the notification again.
    @Test func anAppNotRunningLearnsAtItsNextLaunch() async throws {
        try await withSignedOutApp { world, phone, app in
            let apple = try #require(world.identity?.apple)
            phone.appleAccount = .alice
            _ = try await app.perform { try await $0.signInWithApple() }
            try app.terminate()
            #expect(apple.stopUsingAppleID(email: AppleIDAccount.alice.email, bundleID: app.bundleID))
            #expect(await phone.postAppleCredentialRevoked(bundleID: app.bundleID) == false)
            #expect(app.hasStoredCredentials() == true)
            try await app.launch()
            #expect(try await app.perform { try await $0.getCredentialState() } == .notFound)
            #expect(app.hasStoredCredentials() == false)
            #expect(await phone.postAppleCredentialRevoked(bundleID: app.bundleID))
        }
    }
}
