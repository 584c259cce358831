public import Foundation

/// The captures and the race scenario that replay, redaction and command tests share: the
/// files in `Tests/ReplayTests/Captures`, made by its `make.sh` with signinsim runs.
public enum TestCaptures {
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ReplayTests/Captures")

    /// The path of a file in the folder (`race.har`, `damaged.har`, `session.har`).
    public static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Field bug 1 as a scenario (`race.yaml`): the naive app's two refreshes with one token,
    /// raced by construction (the first held at the issuer, the second sent once it has left).
    public static var raceScenario: String {
        get throws { try String(contentsOfFile: path("race.yaml"), encoding: .utf8) }
    }
}
