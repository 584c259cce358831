import Testing
import YAML

/// The `YAMLError` a parse throws, or nil when it succeeds.
///
/// The closure is untyped because `#require` type-checks closures without the contextual thrown type;
/// any error other than `YAMLError` is recorded as an issue (the API promises only `YAMLError`).
func failure(_ body: () throws -> Void) -> YAMLError? {
    do {
        try body()
        return nil
    } catch let error as YAMLError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// The root of a text that must hold exactly one document.
func root(_ text: String, fileName: String? = nil) throws -> YAMLNode {
    try #require(try YAMLParser.parse(text, fileName: fileName))
}

func mark(_ line: Int, _ column: Int) -> YAMLMark {
    YAMLMark(line: line, column: column)
}
