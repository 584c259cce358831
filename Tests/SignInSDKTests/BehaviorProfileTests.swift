import SignInSDK
import Testing

@Suite struct BehaviorProfileTests {
    /// Profile names read back to the same profile.
    @Test func namesRoundTrip() throws {
        let profile = try BehaviorProfile(named: "naive+strict-clock+persist-late")
        #expect(profile.refreshStrategy == .naive)
        #expect(profile.faults == [.strictClock, .persistLate])
        #expect(try BehaviorProfile(named: profile.description) == profile)
        #expect(try BehaviorProfile(named: "default") == .default)
        #expect(BehaviorProfile.default.description == "default")
    }

    /// `strict` is a set of stricter checks, not a fault, and composes with the other names.
    @Test func strictComposes() throws {
        let profile = try BehaviorProfile(named: "strict-clock+strict+naive")
        #expect(profile.strictness == .strict)
        #expect(profile.strictness.contains(.requireAccessTokenHash))
        #expect(profile.faults == [.strictClock])
        #expect(profile.description == "naive+strict+strict-clock")
        #expect(try BehaviorProfile(named: profile.description) == profile)
        #expect(BehaviorProfile.default.strictness.isEmpty)
    }

    /// An unknown name is an error that lists the known ones.
    @Test func unknownNameIsAnError() {
        let error = #expect(throws: SignInError.self) { _ = try BehaviorProfile(named: "naive+sloppy") }
        #expect(
            error?.message.contains("single-flight, strict, appauth-clock, dpop-server-date, persist-late")
                == true)
    }

    /// Every field bug of docs/field-bugs.md except the issuer-side ones has a fault or strategy.
    @Test func everyClientRowHasAFault() {
        let rows = Set(BehaviorProfile.KnownFault.allCases.compactMap(\.fieldBugRow))
        // Row 1 is the naive refresh strategy.
        #expect(rows.union([1]) == Set(1...16))
    }
}
