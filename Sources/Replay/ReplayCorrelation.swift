import Foundation
import HTTPCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

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
    /// The values drawn at random (not tokens), in the order learned, with their
    /// percent-encoded forms, for substitution inside text. A handful per sign-in.
    private var pairs: [Pair] = []
    /// Re-signed ID tokens, recorded ↔ replayed: one per token response, so ten thousand in a
    /// long capture. They are found in text by their characters (a JWS compact serialization is
    /// base64url and dots, which percent-encoding leaves alone), one dictionary look-up per run
    /// of such characters, not by a search per token: with a search per token, a 10,000-entry
    /// replay spent a third of its time here (`scripts/bench replay`).
    private var replayedTokens: [Substring: String] = [:]
    private var recordedTokens: [Substring: String] = [:]

    private struct Pair {
        var recorded: String
        var replayed: String
        var recordedEscaped: String
        var replayedEscaped: String
    }

    /// Pairs a recorded value with the replayed one; the first pairing of either side stays.
    mutating func learn(recorded: String, replayed: String) {
        guard recorded != replayed, !recorded.isEmpty, !replayed.isEmpty, replayedValues[recorded] == nil,
            recordedValues[replayed] == nil
        else { return }
        replayedValues[recorded] = replayed
        recordedValues[replayed] = recorded
        pairs.append(
            Pair(
                recorded: recorded, replayed: replayed, recordedEscaped: FormURLEncoding.escape(recorded),
                replayedEscaped: FormURLEncoding.escape(replayed)))
    }

    /// Pairs a recorded ID token with the one the replay signed in its place.
    mutating func learnToken(recorded: String, replayed: String) {
        guard recorded != replayed, replayedTokens[recorded[...]] == nil,
            recordedTokens[replayed[...]] == nil,
            Self.isTokenText(recorded), Self.isTokenText(replayed)
        else { return }
        replayedTokens[recorded[...]] = replayed
        recordedTokens[replayed[...]] = recorded
    }

    var isEmpty: Bool { pairs.isEmpty && replayedTokens.isEmpty }

    /// The recorded value a replayed one stands for (itself when none).
    func recorded(_ value: String) -> String { recordedValues[value] ?? recordedTokens[value[...]] ?? value }

    /// The replayed value standing for a recorded one (itself when none).
    func replayed(_ value: String) -> String { replayedValues[value] ?? replayedTokens[value[...]] ?? value }

    /// Text with every replayed value (raw and percent-encoded) put back to its recorded one.
    func toRecorded(_ text: String) -> String {
        var output = Self.substituteTokens(text, recordedTokens)
        for pair in pairs {
            output = Self.replace(
                pair.replayed, pair.replayedEscaped, in: output, with: pair.recorded, pair.recordedEscaped)
        }
        return output
    }

    /// Text with every recorded value put to its replayed one, but `kept`, which stays as
    /// recorded.
    func toReplayed(_ text: String, keeping kept: String? = nil) -> String {
        var output = Self.substituteTokens(text, replayedTokens)
        for pair in pairs where pair.recorded != kept {
            output = Self.replace(
                pair.recorded, pair.recordedEscaped, in: output, with: pair.replayed, pair.replayedEscaped)
        }
        return output
    }

    /// `text` with `from` and its percent-encoded form replaced, searched over UTF-8 with libc's
    /// `memchr` and `memcmp`. Foundation's `contains` on a Swift string bridges it to UTF-16
    /// first, and took 15% of a 10,000-entry replay (`scripts/bench replay`) for answers that
    /// mostly hold none of the values; the standard library's generic `firstRange(of:)` was
    /// slower still.
    private static func replace(
        _ from: String, _ escapedFrom: String, in text: String, with to: String, _ escapedTo: String
    ) -> String {
        guard from.utf8.count >= shortestValue else { return text }
        var output = replacingOccurrences(of: from, with: to, in: text)
        if escapedFrom != from { output = replacingOccurrences(of: escapedFrom, with: escapedTo, in: output) }
        return output
    }

    private static func replacingOccurrences(of from: String, with to: String, in text: String) -> String {
        let haystack = Array(text.utf8)
        let needle = Array(from.utf8)
        guard var found = firstOccurrence(of: needle, in: haystack, from: 0) else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(haystack.count)
        var offset = 0
        while true {
            output.append(contentsOf: haystack[offset..<found])
            output.append(contentsOf: to.utf8)
            offset = found + needle.count
            guard let next = firstOccurrence(of: needle, in: haystack, from: offset) else { break }
            found = next
        }
        output.append(contentsOf: haystack[offset...])
        return String(decoding: output, as: UTF8.self)
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    private static func firstOccurrence(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start >= 0, haystack.count - start >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Int? in
            needle.withUnsafeBufferPointer { pin -> Int? in
                guard let hayBase = hay.baseAddress, let pinBase = pin.baseAddress else { return nil }
                let lastStart = hay.count - pin.count
                var position = start
                while position <= lastStart {
                    guard
                        let candidate = memchr(hayBase + position, Int32(first), lastStart - position + 1)
                    else { return nil }
                    let at = hayBase.distance(to: candidate.assumingMemoryBound(to: UInt8.self))
                    if memcmp(hayBase + at, pinBase, pin.count) == 0 { return at }
                    position = at + 1
                }
                return nil
            }
        }
    }

    /// Whether a byte may appear in a JWS compact serialization (RFC 7515 §7.1).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private static func isTokenText(_ text: String) -> Bool { text.utf8.allSatisfy(isTokenByte) }

    /// Text with each maximal run of token characters that is a known token replaced.
    private static func substituteTokens(_ text: String, _ table: [Substring: String]) -> String {
        guard !table.isEmpty else { return text }
        var output = ""
        var copiedUpTo = text.startIndex
        var index = text.utf8.startIndex
        let end = text.utf8.endIndex
        while index < end {
            guard isTokenByte(text.utf8[index]) else {
                index = text.utf8.index(after: index)
                continue
            }
            var runEnd = index
            while runEnd < end, isTokenByte(text.utf8[runEnd]) { runEnd = text.utf8.index(after: runEnd) }
            if let replacement = table[text[index..<runEnd]] {
                output += text[copiedUpTo..<index]
                output += replacement
                copiedUpTo = runEnd
            }
            index = runEnd
        }
        if copiedUpTo == text.startIndex { return text }
        output += text[copiedUpTo...]
        return output
    }
}
