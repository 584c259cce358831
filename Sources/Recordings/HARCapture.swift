public import JSON
public import Scenario

/// A HAR capture read into exchanges: what replay and import work from.
public struct HARCapture: Sendable {
    /// The capture's exchanges in the file's order (HAR writers list them by start time).
    public var exchanges: [RecordedExchange]
    /// Entries that could not be used, with why: a report lists them, nothing crashes.
    public var skipped: [SkippedEntry]
    /// `log.creator.name` and `version`, when given (`Charles Proxy`, `mitmproxy`, `signinsim`).
    public var creator: String?
    /// `log.comment`, when given.
    public var comment: String?
    /// `log.pages`: a signinsim run writes one per top-level step of its scenario.
    public var pages: [CapturePage] = []
    /// `log._signinsim`: which scenario a signinsim run played, with which apps and seed.
    public var run: [String: JSONValue]?
    /// Each exchange's position in the file's `log.entries`, from 0 (they differ from the
    /// exchanges' own positions once an entry has been skipped), so that reports name entries
    /// as the file numbers them.
    public var entryNumbers: [Int]

    public init(
        exchanges: [RecordedExchange], skipped: [SkippedEntry] = [], creator: String? = nil,
        entryNumbers: [Int]? = nil
    ) {
        self.exchanges = exchanges
        self.skipped = skipped
        self.creator = creator
        self.entryNumbers = entryNumbers ?? Array(exchanges.indices)
    }

    /// The position in the file's `log.entries` of exchange `index`, from 0.
    public func entryPosition(of index: Int) -> Int {
        entryNumbers.indices.contains(index) ? entryNumbers[index] : index
    }

    /// The number reports give exchange `index`: its entry's place in `log.entries`, counted
    /// from 1 (entry 1 is the first), as HAR viewers list them.
    public func entryNumber(of index: Int) -> Int { entryPosition(of: index) + 1 }
}

/// A page of a capture (HAR 1.2 §pages): for a signinsim run, one top-level step.
public struct CapturePage: Sendable, Hashable {
    public var id: String
    public var title: String
    /// When the page began, in milliseconds since the Unix epoch.
    public var startedAtMilliseconds: Int64?
    /// signinsim's `_step`: the step as the scenario file writes it.
    public var step: JSONValue?
    /// signinsim's `_outcome`: how the step ended (`outcome`, `call`, `children`).
    public var outcome: JSONValue?

    public init(
        id: String, title: String, startedAtMilliseconds: Int64? = nil, step: JSONValue? = nil,
        outcome: JSONValue? = nil
    ) {
        self.id = id
        self.title = title
        self.startedAtMilliseconds = startedAtMilliseconds
        self.step = step
        self.outcome = outcome
    }
}

/// An entry left out of a capture.
public struct SkippedEntry: Hashable, Sendable, CustomStringConvertible {
    /// Position in `log.entries`, from 0.
    public var index: Int
    public var reason: String

    public init(index: Int, reason: String) {
        self.index = index
        self.reason = reason
    }

    /// `entry 3: reason`, numbered from 1 as reports number entries.
    public var description: String { "entry \(index + 1): \(reason)" }
}

/// Why a file is not a HAR capture at all.
public struct HARError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// Where the JSON went wrong, when the problem has a place.
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, or as much of the place as is known.
    public var description: String {
        var place = file
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(message)"
    }
}
