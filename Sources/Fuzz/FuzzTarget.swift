/// One thing to fuzz: a parser or a request handler, fed the raw input bytes.
struct FuzzTarget: Sendable {
    /// The name `SIGNINSIM_FUZZ_TARGET` selects, also the folder of its corpus and dictionary.
    let name: String
    /// What it feeds, for `scripts/fuzz --list`.
    let summary: String
    /// Work done once before the first input (building an issuer); nothing by default.
    let prepare: @Sendable () -> Void
    /// Feeds one input.
    let run: @Sendable ([UInt8]) -> Void

    init(
        _ name: String, _ summary: String, prepare: @escaping @Sendable () -> Void = {},
        run: @escaping @Sendable ([UInt8]) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.prepare = prepare
        self.run = run
    }

    /// Every target, parsers first, then the request handlers.
    static let all: [FuzzTarget] = ParserTargets.all + HandlerTargets.all

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    static var names: String { all.map(\.name).joined(separator: ", ") }
}
