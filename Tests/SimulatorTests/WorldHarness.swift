import AppleID
import Device
import HTTPCore
import Issuer
import SignInSDK
import Simulator
import TestSupport
import WebAuthSession
import WebKitSession
import WorldVocabulary

/// Runs `body` in a fresh world hosting the embedded issuer, with one phone and the default
/// app installed and launched, and shuts the world down afterwards (bounded in time).
func withSignedOutApp(
    profile: BehaviorProfile = .default, tenant: Tenant = .default, skew: Int64 = 0,
    usesDPoP: Bool = false, issuerSuffix: String = "", postLogoutRedirectURI: String? = nil,
    browser: BrowserEngine = .lite,
    _ body: @escaping @Sendable (SimulationWorld, SimulatedPhone, SimulatedApp) async throws -> Void
) async throws {
    let world = try await SimulationWorld.embedded(
        tenant: tenant, seed: 42, webKit: browser == .webkit ? try TestWebKit.engine() : nil)
    do {
        let phone = try world.addPhone(skew: skew)
        var configuration = world.defaultAppConfiguration(profile: profile)
        configuration.browser = browser
        configuration.options.usesDPoP = usesDPoP
        configuration.options.issuer += issuerSuffix
        configuration.options.postLogoutRedirectURI = postLogoutRedirectURI
        let app = try phone.install(configuration)
        try await app.launch()
        app.webUser = .alice
        try await withTimeout(.seconds(60)) { try await body(world, phone, app) }
    } catch {
        await world.shutdown()
        throw error
    }
    await world.shutdown()
}

extension WebUserScript {
    static let alice = WebUserScript.signIn(username: "alice@example.com", password: "alice-password")
    static let bob = WebUserScript.signIn(username: "bob@example.com", password: "bob-password")
}

extension AppleIDAccount {
    static let alice = AppleIDAccount(
        email: "alice.apple@example.com", givenName: "Alice", familyName: "Liddell")
}

/// The `SignInError` a call threw, or `nil`.
func signInError<T>(_ body: () async throws -> T) async -> SignInError? {
    do {
        _ = try await body()
        return nil
    } catch let error as SignInError {
        return error
    } catch {
        return SignInError(.transport, "unexpected \(error)")
    }
}
