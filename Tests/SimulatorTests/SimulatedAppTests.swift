import SignInSDK
import Simulator
import TestSupport
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

    /// A sheet left pending gives up after five minutes of the world's time, not before.
    @Test func aPendingSheetTimesOutAfterFiveMinutesOfWorldTime() async throws {
        try await withSignedOutApp { world, phone, app in
            app.webUser = .signIn(
                username: "alice@example.com", password: "alice-password", interruption: .abandon(at: .login))
            let attempt = Task { await signInError { try await app.perform { try await $0.signIn() } } }
            // The deadline is armed before the sheet's first request leaves the device.
            try await phone.device.network.sent.wait(for: "the sheet's /authorize request") {
                phone.device.network.sentCount(path: "/authorize") == 1
            }
            world.advance(by: 299)
            #expect(app.isPresentingSheet)
            world.advance(by: 1)
            let error = await attempt.value
            #expect(error?.message.contains("deadline") == true)
            #expect(!app.isPresentingSheet)
        }
    }

    /// A sheet that closes on its own removes its deadline from the world's clock, so finished
    /// sign-ins leave no timers behind.
    @Test func aFinishedSheetLeavesNoTimerOnTheWorldClock() async throws {
        try await withSignedOutApp { world, _, app in
            let before = world.scheduler.pendingCount
            for _ in 0..<3 {
                _ = try await app.perform {
                    try await $0.signIn(options: SignInRequestOptions(prompt: "login"))
                }
            }
            #expect(world.scheduler.pendingCount == before)
        }
    }
}

/// A world's randomness: derived from its seed, or the system's.
@Suite struct WorldRandomnessTests {
    /// Phones of two worlds with one seed draw the same bytes; without a seed they draw the
    /// system's, which never repeat.
    @Test func seededRepeatsFreshDoesNot() throws {
        func draw(_ seed: UInt64?) throws -> [UInt8] {
            try SimulationWorld.external(seed: seed).addPhone().device.random.bytes(count: 32)
        }
        #expect(try draw(7) == draw(7))
        #expect(try draw(nil) != draw(nil))
        #expect(SimulationWorld.external(seed: nil).seed == nil)
    }
}
