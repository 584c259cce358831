import Testing

@testable import YAML

/// Which keys are the same key: what the duplicate check relies on.
@Suite struct KeyIdentityTests {
    private func identity(_ text: String) throws -> KeyIdentity {
        KeyIdentity(try #require(try YAMLParser.parse(Array(text.utf8))))
    }

    @Test func mappingsWithTheSamePairsInAnotherOrderAreOneKey() throws {
        #expect(try identity("{a: 1, b: [x, {c: d}]}") == identity("{b: [x, {c: d}], a: 1}"))
        #expect(try identity("{a: 1, b: 2}") != identity("{a: 2, b: 1}"))
        #expect(try identity("{a: 1}") != identity("{a: 1, b: 2}"))
    }

    @Test func sequencesKeepTheirOrder() throws {
        #expect(try identity("[1, 2]") != identity("[2, 1]"))
        #expect(try identity("[1, [2, 3]]") == identity("[0x1, [2, 0o3]]"))
    }

    @Test func scalarsCompareByValueAndTag() throws {
        #expect(try identity("1") == identity("0x1"))
        #expect(try identity("1") != identity("'1'"))
        #expect(try identity(".nan") == identity(".NaN"))
        #expect(try identity("!x 1") != identity("1"))
    }

    @Test func aDuplicateKeyNestedDeepInKeysIsFound() throws {
        var key = "a"
        for _ in 0..<100 { key = "{\(key): x}" }
        #expect(throws: YAMLError.self) { try YAMLParser.parse(Array("{\(key): 1, \(key): 2}".utf8)) }
        #expect(try YAMLParser.parse(Array("{\(key): 1, {\(key): y}: 2}".utf8)) != nil)
    }
}
