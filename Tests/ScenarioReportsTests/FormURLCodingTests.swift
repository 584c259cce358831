import Testing

@testable import ScenarioReports

@Suite("Form URL coding")
struct FormURLCodingTests {
    /// Escapes and `+` decode; a malformed escape is shown as written rather than refused.
    @Test("decodes leniently")
    func decodes() {
        #expect(FormURLCoding.decode("a%20b+c%2Bd") == "a b c+d")
        #expect(FormURLCoding.decode("100%") == "100%")
        #expect(FormURLCoding.decode("%zz%4") == "%zz%4")
        #expect(FormURLCoding.decode("Zo%C3%AB") == "Zoë")
    }

    /// Pairs keep their raw text; empty pairs are skipped and a pair without `=` has no value.
    @Test("splits pairs")
    func pairs() {
        let pairs = FormURLCoding.pairs("a=1&&flag&b=x%3Dy=z")
        #expect(pairs.map(\.name) == ["a", "flag", "b"])
        #expect(pairs.map(\.value) == ["1", "", "x=y=z"])
        #expect(pairs[1].rawValue == nil)
    }

    /// Only unreserved characters stay as they are.
    @Test("encodes for queries")
    func encodes() {
        #expect(FormURLCoding.encode("<REDACTED:password>") == "%3CREDACTED%3Apassword%3E")
        #expect(FormURLCoding.encode("a-b_c.d~e é") == "a-b_c.d~e%20%C3%A9")
    }
}
