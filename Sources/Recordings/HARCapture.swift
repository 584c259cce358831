public import Scenario

/// A HAR capture read into exchanges: what replay and import work from.
public struct HARCapture: Sendable {
    /// The capture's exchanges in the file's order (HAR writers list them by start time).
    public var exchanges: [RecordedExchange]
    /// Entries that could not be used, with why: a report lists them, nothing crashes.
    public var skipped: [SkippedEntry]
    /// `log.creator.name` and `version`, when given (`Charles Proxy`, `mitmproxy`, `signinsim`).
    public var creator: String?
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

    /// The position in the file's `log.entries` of exchange `index`.
    public func entryNumber(of index: Int) -> Int {
        entryNumbers.indices.contains(index) ? entryNumbers[index] : index
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

    public var description: String { "entry \(index): \(reason)" }
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
