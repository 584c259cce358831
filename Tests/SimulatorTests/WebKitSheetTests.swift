import HTTPCore
import SignInSDK
import Simulator
import Testing
import WebAuthSession

/// The web flow in the `webkit` engine against the embedded issuer.
@Suite struct WebKitSheetTests {
    @Test func signInRefreshSignOut() async throws {
        try await withSignedOutApp(postLogoutRedirectURI: "com.example.app://auth/logout", browser: .webkit) {
            world, phone, app in
            let session = try await app.perform { try await $0.signIn() }
            #expect(session.claims["email"]?.stringValue == "alice@example.com")
            print(
                app.lastWebTrace.map { "\($0.method) \($0.url) \($0.status ?? 0) \($0.action) \($0.rules)" })
            #expect(try await app.perform { try await $0.signOut() }.endSession == .acknowledged)
        }
    }
}
