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

    /// An unknown name is an error that lists the known ones.
    @Test func unknownNameIsAnError() {
        #expect(throws: SignInError.self) { _ = try BehaviorProfile(named: "naive+sloppy") }
    }

    /// Every row of field-bugs.md except the issuer-side ones has a fault or strategy.
    @Test func everyClientRowHasAFault() {
        let rows = Set(BehaviorProfile.KnownFault.allCases.compactMap(\.fieldBugRow))
        // Row 1 is the naive refresh strategy.
        #expect(rows.union([1]) == Set(1...16))
    }
}
