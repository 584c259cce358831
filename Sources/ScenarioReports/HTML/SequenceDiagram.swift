public import Scenario

/// One scenario's HTTP exchanges as a sequence diagram: a lifeline per party, an arrow per
/// request and one per response, steps as horizontal bands, in the order things happened.
///
/// A value made from a run (`init(result:exchanges:recording:)`) and drawn as SVG by `svg`;
/// both are pure, so a test reads the layout without a browser.
public struct SequenceDiagram: Sendable {
    /// A party of the sign-in.
    public enum Lifeline: Hashable, Sendable {
        /// An app and its SDK, by bundle id.
        case app(String)
        /// The web authentication session: the system browser sheet.
        case webSession
        /// The device keychain, where the SDK stores the session.
        case keychain
        case issuer
        case apple

        public var title: String {
            switch self {
            case .app(let id): "App \(id)"
            case .webSession: "Web session"
            case .keychain: "Keychain"
            case .issuer: "Issuer"
            case .apple: "Apple"
            }
        }
    }

    /// One arrow.
    public struct Message: Hashable, Sendable {
        public var from: Lifeline
        public var to: Lifeline
        /// `POST /oauth/token`, or `400 invalid_grant`.
        public var label: String
        /// Whether it is an answer (drawn dashed).
        public var isResponse: Bool
        /// An error status, an OAuth error or no answer at all.
        public var failed: Bool
        /// The exchange's position in the scenario's HAR, from 0.
        public var exchange: Int
    }

    /// A top-level step and the arrows sent while it ran.
    public struct Band: Hashable, Sendable {
        /// `3 signIn`.
        public var title: String
        /// Where it is written, its world time and its outcome.
        public var subtitle: String
        public var outcome: StepRecord.Outcome?
        public var messages: [Message]
        /// The web sheet pages the step acted on, drawn beside the band.
        public var thumbnails: [Thumbnail] = []
    }

    /// A picture of a sheet page, beside its step's band.
    public struct Thumbnail: Hashable, Sendable {
        public var jpeg: [UInt8]
        /// The picture's own size in pixels.
        public var width: Int
        public var height: Int
        /// What the page was and what the person did there.
        public var caption: String
        /// Whether the sheet ended on this page with an error.
        public var failed: Bool

        /// The size it is drawn at: `thumbnailWidth` wide.
        var drawnHeight: Int { max(1, height * SequenceDiagram.thumbnailWidth / max(1, width)) }
    }

    public var lifelines: [Lifeline]
    public var bands: [Band]
    /// Exchanges marked `≠` with why: where a replay parts from its recording.
    public var marks: [Int: String] = [:]

    public var messageCount: Int { bands.reduce(0) { $0 + $1.messages.count } }

    // MARK: Drawing

    static let columnWidth = 170
    static let margin = 12
    static let headerHeight = 44
    static let bandTitleHeight = 34
    static let rowHeight = 24
    /// How wide a sheet page's picture is drawn, and the gap after it.
    static let thumbnailWidth = 120
    static let thumbnailGap = 8

    /// The diagram as an SVG element, with a text alternative (`title`, `desc`) and every arrow
    /// focusable, its exchange in `data-exchange`.
    public func svg(id: String, summary: String) -> String {
        let pictures = bands.map(\.thumbnails.count).max() ?? 0
        let lifelinesWidth = Self.margin * 2 + Self.columnWidth * lifelines.count
        let width = lifelinesWidth + pictures * (Self.thumbnailWidth + Self.thumbnailGap)
        let height = Self.headerHeight + bands.reduce(0) { $0 + Self.bandHeight($1) } + Self.margin
        var x: [Lifeline: Int] = [:]
        for (index, lifeline) in lifelines.enumerated() {
            x[lifeline] = Self.margin + Self.columnWidth * index + Self.columnWidth / 2
        }
        var out = """
            <svg id="\(id)" class="diagram" xmlns="http://www.w3.org/2000/svg" width="\(width)" \
            height="\(height)" viewBox="0 0 \(width) \(height)" role="group" \
            aria-labelledby="\(id)-title \(id)-desc">
            <title id="\(id)-title">Sequence diagram</title>
            <desc id="\(id)-desc">\(escaped(summary))</desc>

            """
        var y = Self.headerHeight
        for band in bands {
            let height = Self.bandHeight(band)
            let state = band.outcome.map { " \($0.rawValue)" } ?? ""
            out += "<g class=\"band\(state)\">"
            out += "<rect x=\"2\" y=\"\(y)\" width=\"\(width - 4)\" height=\"\(height - 4)\" rx=\"4\"/>"
            let mark = band.outcome == .failed ? "✗ " : ""
            out +=
                "<text class=\"band-title\" x=\"\(Self.margin)\" y=\"\(y + 14)\">\(escaped(mark + band.title))</text>"
            out +=
                "<text class=\"band-sub\" x=\"\(Self.margin)\" y=\"\(y + 27)\">\(escaped(band.subtitle))</text>"
            out += "</g>\n"
            for (index, picture) in band.thumbnails.enumerated() {
                let left = lifelinesWidth + index * (Self.thumbnailWidth + Self.thumbnailGap)
                let top = y + Self.bandTitleHeight - 4
                out += "<g class=\"sheet-page\(picture.failed ? " failed" : "")\" role=\"img\" "
                out +=
                    "aria-label=\"\(attribute("Web sheet: " + picture.caption))\"><title>\(escaped(picture.caption))</title>"
                out += "<image x=\"\(left)\" y=\"\(top)\" width=\"\(Self.thumbnailWidth)\" "
                out += "height=\"\(picture.drawnHeight)\" href=\"data:image/jpeg;base64,"
                out += Base64.encode(picture.jpeg) + "\"/>"
                out +=
                    "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(Self.thumbnailWidth)\" height=\"\(picture.drawnHeight)\"/></g>\n"
            }
            y += height
        }
        for lifeline in lifelines {
            guard let center = x[lifeline] else { continue }
            out += "<g class=\"lifeline\" data-lifeline=\"\(attribute(lifeline.title))\">"
            out +=
                "<line x1=\"\(center)\" y1=\"\(Self.headerHeight - 8)\" x2=\"\(center)\" y2=\"\(height - 4)\"/>"
            out += "<rect x=\"\(center - 72)\" y=\"6\" width=\"144\" height=\"28\" rx=\"5\"/>"
            out += "<text x=\"\(center)\" y=\"25\">\(escaped(Self.clipped(lifeline.title, 20)))</text></g>\n"
        }
        y = Self.headerHeight
        for band in bands {
            var row = y + Self.bandTitleHeight
            for message in band.messages {
                if let from = x[message.from], let to = x[message.to] {
                    out += arrow(
                        message, from: from, to: to, y: row + 14, inFailedStep: band.outcome == .failed)
                }
                row += Self.rowHeight
            }
            y += Self.bandHeight(band)
        }
        return out + "</svg>"
    }

    private func arrow(_ message: Message, from: Int, to: Int, y: Int, inFailedStep: Bool) -> String {
        var classes = ["arrow", message.isResponse ? "response" : "request"]
        if message.failed { classes.append("failed") }
        if inFailedStep { classes.append("in-failed-step") }
        let divergence = marks[message.exchange]
        if divergence != nil { classes.append("diverges") }
        let end = to > from ? to - 4 : to + 4
        let middle = (from + to) / 2
        let mark = (divergence != nil ? "≠ " : "") + (message.failed ? "✗ " : "")
        let label = mark + message.label
        var spoken = (message.isResponse ? "Answer: " : "Request: ") + label
        if let divergence { spoken += "; parts from the other story: " + divergence }
        let shown = Self.clipped(label, 44)
        // The whole label (and a divergence) as a tooltip only where the drawn one says less.
        let tooltip = shown == label && divergence == nil ? "" : "<title>\(escaped(spoken))</title>"
        return """
            <g class="\(classes.joined(separator: " "))" data-exchange="\(message.exchange)" tabindex="0" \
            role="button" aria-label="\(attribute(spoken))">\(tooltip)\
            <line x1="\(from)" y1="\(y)" x2="\(end)" y2="\(y)"/>\
            <rect class="hit" x="\(min(from, to))" y="\(y - 16)" width="\(abs(to - from))" height="20"/>\
            <text x="\(middle)" y="\(y - 4)">\(escaped(shown))</text></g>

            """
    }

    /// The arrowheads every diagram of a page uses, defined once (an SVG of no size).
    public static let markers = """
        <svg width="0" height="0" aria-hidden="true" focusable="false" style="position:absolute">\
        <defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" \
        orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1f4e8c"/></marker>\
        <marker id="arrowhead-failed" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" \
        orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker></defs></svg>
        """

    private static func bandHeight(_ band: Band) -> Int {
        let arrows = bandTitleHeight + rowHeight * band.messages.count + (band.messages.isEmpty ? 4 : 10)
        let pictures = band.thumbnails.map(\.drawnHeight).max().map { bandTitleHeight + $0 + 6 } ?? 0
        return max(arrows, pictures)
    }

    static func clipped(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    private func escaped(_ text: String) -> String { XMLWriter.escapedText(text) }
    private func attribute(_ text: String) -> String { XMLWriter.escapedAttribute(text) }
}
