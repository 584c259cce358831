import SignInSDK
import Simulator
import Testing

/// The app model's own rules, apart from the field-bug rows.
@Suite struct SimulatedAppTests {
    /// An SDK call starts at once, on the caller's thread, and runs up to its first suspension
    /// before `perform` has registered it. A kill in that stretch finds nothing to cancel, so
    /// `perform` must notice the process is gone and abandon the call itself.
    @Test func killBeforeTheCallIsRegisteredAbandonsIt() async throws {
        try await withSignedOutApp { _, _, app in
            let error = await signInError {
                try await app.perform { client in
                    try app.terminate()
                    return try await client.signIn()
                }
            }
            #expect(error?.code == .transport)
            #expect(error?.message.hasPrefix("the app was terminated before the call finished") == true)
            #expect(!app.isPresentingSheet)
        }
    }
}
