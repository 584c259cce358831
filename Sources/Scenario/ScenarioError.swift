public import Errors

/// Why a scenario file cannot run: it is not YAML, or it is YAML that is not a valid
/// scenario. Always with the place, so editors and CI annotations can point at it. A file with
/// several problems throws the first, in file order, with the rest in `alsoFound`.
public struct ScenarioError: CodedError {
    public enum Code: String, Hashable, Sendable {
        /// The file cannot be read (missing, too large, not UTF-8).
        case unreadable
        /// libyaml refused the text.
        case syntax
        /// Valid YAML, but not a valid scenario.
        case invalid
    }

    public var code: Code
    public var message: String
    public var location: SourceLocation
    /// The file's other problems, after this one.
    public var alsoFound: [ScenarioError] = []

    public init(_ code: Code, _ message: String, at location: SourceLocation) {
        self.code = code
        self.message = message
        self.location = location
    }

    /// This problem and the others found with it, in file order.
    public var problems: [ScenarioError] {
        var first = self
        first.alsoFound = []
        return [first] + alsoFound
    }

    /// `file:line:column: message`, a line per problem.
    public var description: String {
        problems.map { "\($0.location): \($0.message)" }.joined(separator: "\n")
    }
}

/// Every problem found while checking one scenario and the flows it includes: the decoders
/// record a problem and go on with the next step, key or value, so that one `validate` shows
/// them all (issue: "every problem in a file is reported before anything runs").
final class ProblemLog {
    /// The most problems kept: a 4 MiB file of mistakes must not become gigabytes of messages;
    /// past this many, the rest are only counted.
    static let limit = 200

    private(set) var problems: [ScenarioError] = []
    /// Problems found past `limit`.
    private(set) var unrecorded = 0
    private var places: Set<SourceLocation> = []

    /// Records `problem` unless one was found at its place already: a value that could not be
    /// substituted is not also reported as a wrong value.
    func record(_ problem: ScenarioError) {
        for single in problem.problems where places.insert(single.location).inserted {
            if problems.count < Self.limit { problems.append(single) } else { unrecorded += 1 }
        }
    }

    /// The value `body` returns; nil when it throws, its problem recorded.
    func attempt<Value>(_ body: () throws(ScenarioError) -> Value) -> Value? {
        do {
            return try body()
        } catch {
            record(error)
            return nil
        }
    }

    /// The problems as one error, in file order (the main file's first), or nil when there
    /// were none.
    func combined(mainFile: String) -> ScenarioError? {
        // Files in the order their first problem was found, the main file first.
        var rank = [mainFile: 0]
        for problem in problems where rank[problem.location.file] == nil {
            rank[problem.location.file] = rank.count
        }
        let ordered = problems.enumerated().sorted { left, right in
            let (a, b) = (left.element.location, right.element.location)
            return (rank[a.file] ?? 0, a.line, a.column, left.offset) < (
                rank[b.file] ?? 0, b.line, b.column, right.offset
            )
        }.map(\.element)
        guard var first = ordered.first, let last = ordered.last else { return nil }
        first.alsoFound = Array(ordered.dropFirst())
        if unrecorded > 0 {
            first.alsoFound.append(
                ScenarioError(
                    .invalid, "and \(unrecorded) more problems; fix these and check again", at: last.location)
            )
        }
        return first
    }
}
