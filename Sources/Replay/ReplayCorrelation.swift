import Foundation
import HTTPCore

/// The values the replayed app drew at random, paired with the ones the recorded app drew in
/// their place: `state`, `nonce` and `code_challenge` of each authorization request (and a
/// logout's `state`), learned when the replayed request is matched with its recorded twin, and
/// each ID token the replay re-signed with the recorded one it stands for.
///
/// Requests are translated to the recording's values before they are matched (so that a page
/// that carries the `state` in a form's hidden field or a `next=` URL matches its recorded
/// twin), and answers are translated to the replay's values before they are served (so that
/// the callback carries the `state` the replayed app sent, and the app accepts it). Values
/// shorter than `shortestValue` are never substituted inside other text: they would match by
/// chance.
struct ReplayCorrelation: Sendable {
    static let shortestValue = 8

    /// Recorded value → replayed value, and back.
    private(set) var replayedValues: [String: String] = [:]
    private(set) var recordedValues: [String: String] = [:]
    /// Both, in the order learned, for substitution inside text.
    private var pairs: [(recorded: String, replayed: String)] = []

    /// Pairs a recorded value with the replayed one; the first pairing of either side stays.
    mutating func learn(recorded: String, replayed: String) {
        guard recorded != replayed, !recorded.isEmpty, !replayed.isEmpty, replayedValues[recorded] == nil,
            recordedValues[replayed] == nil
        else { return }
        replayedValues[recorded] = replayed
        recordedValues[replayed] = recorded
        pairs.append((recorded, replayed))
    }

    var isEmpty: Bool { pairs.isEmpty }

    /// The recorded value a replayed one stands for (itself when none).
    func recorded(_ value: String) -> String { recordedValues[value] ?? value }

    /// The replayed value standing for a recorded one (itself when none).
    func replayed(_ value: String) -> String { replayedValues[value] ?? value }

    /// Text with every replayed value (raw and percent-encoded) put back to its recorded one.
    func toRecorded(_ text: String) -> String {
        substitute(text, pairs.map { ($0.replayed, $0.recorded) })
    }

    /// Text with every recorded value put to its replayed one.
    func toReplayed(_ text: String) -> String {
        substitute(text, pairs.map { ($0.recorded, $0.replayed) })
    }

    private func substitute(_ text: String, _ replacements: [(String, String)]) -> String {
        var output = text
        for (from, to) in replacements where from.utf8.count >= Self.shortestValue {
            if output.contains(from) { output = output.replacingOccurrences(of: from, with: to) }
            let escapedFrom = FormURLEncoding.escape(from)
            if escapedFrom != from, output.contains(escapedFrom) {
                output = output.replacingOccurrences(of: escapedFrom, with: FormURLEncoding.escape(to))
            }
        }
        return output
    }
}
