import Testing

@testable import Errors

@Suite struct NearMissTests {
    @Test(
        arguments: [
            ("valdate", ["run", "validate", "list"], "validate"),
            ("--jbos", ["--jobs", "--junit", "--json"], "--jobs"),
            ("verfy", ["verify", "decode", "sign"], "verify"),
            ("signin", ["signIn", "signOut", "launch"], "signIn"),
            ("naiv", ["default", "naive", "serialized"], "naive"),
            ("sesion_expired", ["session_expired", "cancelled"], "session_expired"),
            ("sleeping", ["notRunning", "suspended", "background"], nil),
            ("rp-made-up-fault", ["rp-id_token-sig-none", "http-500"], nil),
        ] as [(String, [String], String?)])
    func suggestsOnlyCloseNames(typed: String, candidates: [String], expected: String?) {
        #expect(NearMiss.suggestion(for: typed, among: candidates) == expected)
    }

    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(NearMiss.editDistance(Array("jbos".unicodeScalars), Array("jobs".unicodeScalars)) == 1)
        #expect(NearMiss.editDistance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars)) == 3)
        #expect(NearMiss.editDistance([], Array("abc".unicodeScalars)) == 3)
    }

    @Test func theNameItselfAndEmptyInputSuggestNothing() {
        #expect(NearMiss.suggestion(for: "run", among: ["run"]) == nil)
        #expect(NearMiss.suggestion(for: "", among: ["a"]) == nil)
        #expect(NearMiss.alternatives(for: "lunch", among: ["launch"]) == "; did you mean \"launch\"?")
        #expect(NearMiss.alternatives(for: "zzz", among: ["launch"]) == "; expected one of: launch")
    }
}
