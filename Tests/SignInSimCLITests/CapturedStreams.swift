import Locking

@testable import SignInSimCLI

/// Standard output and standard error of an in-process `SignInSimCLI.run`, kept in memory, in
/// the order they were written (`interleaved`), as a terminal showing both would receive them.
final class CapturedStreams: Sendable {
    /// One write, and the stream it went to.
    enum Write: Equatable, Sendable {
        case standardOutput(String)
        case standardError(String)

        var text: String {
            switch self {
            case .standardOutput(let text), .standardError(let text): text
            }
        }
    }

    private let writes = Mutex<[Write]>([])

    /// Every write in order.
    var all: [Write] { writes.withLock { $0 } }

    /// What a terminal showing both streams received, in order.
    var interleaved: String { all.map(\.text).joined() }

    var standardOutput: String {
        all.compactMap { if case .standardOutput(let text) = $0 { text } else { nil } }.joined()
    }

    var standardError: String {
        all.compactMap { if case .standardError(let text) = $0 { text } else { nil } }.joined()
    }

    /// A context whose streams write here, with the given environment; files are read from disk.
    func context(environment: [String: String] = [:]) -> CLIContext {
        var context = CLIContext.live()
        context.writeOut = { [self] text in writes.withLock { $0.append(.standardOutput(text)) } }
        context.writeError = { [self] text in writes.withLock { $0.append(.standardError(text)) } }
        context.readInput = { [] }
        context.environment = environment
        return context
    }
}
