public import Errors
import Foundation
public import HTTPCore

/// What a headless browser reads from an HTML page: its title, its forms and the text of its
/// error messages, parsed with libxml2's HTML parser (which recovers from broken markup the way
/// the HTML Living Standard's parser, §13.2, mostly does).
public struct HTMLDocument: Hashable, Sendable {
    /// Largest page parsed by default: 2 MiB.
    public static let defaultMaximumSize = 2 << 20

    /// The page's URL, against which every form action was resolved.
    public let url: String
    /// The `<title>` text, whitespace collapsed; `nil` without a title.
    public let title: String?
    /// Every `<form>` in document order.
    public let forms: [HTMLForm]
    /// Human-visible text of elements that look like error messages: `role="alert"`, or a
    /// `class` containing "error" (an element inside one already counted is not repeated).
    public let errorMessages: [String]
    /// The whole visible text of the body, whitespace collapsed, for reports.
    public let text: String
    /// How many `<script>` elements the page has.
    public let scriptCount: Int

    /// Parses a page.
    ///
    /// - Parameters:
    ///   - bytes: the body as received.
    ///   - contentType: the response's `Content-Type`; its `charset` wins over a `<meta>` one,
    ///     and without either the page is read as UTF-8.
    ///   - url: the page's absolute URL.
    ///   - maximumSize: pages longer than this are refused unread.
    /// - Throws: `HTMLDocumentError` when the page is too large or libxml2 can make nothing of it.
    public init(
        bytes: [UInt8], contentType: String? = nil, url: String, maximumSize: Int = defaultMaximumSize
    ) throws(HTMLDocumentError) {
        guard bytes.count <= maximumSize else {
            throw HTMLDocumentError(.tooLarge, "the page has \(bytes.count) bytes, more than \(maximumSize)")
        }
        let declared = contentType.flatMap(Self.charset(inContentType:))
        guard
            let page = HTMLPageReader.read(bytes: bytes, encoding: declared, url: url)
                ?? HTMLPageReader.read(bytes: bytes, encoding: nil, url: url)
        else {
            throw HTMLDocumentError(.unreadable, "libxml2 found no HTML in \(bytes.count) bytes")
        }
        self.url = url
        title = page.title
        forms = page.forms
        errorMessages = page.errorMessages
        text = page.text
        scriptCount = page.scriptCount
    }

    /// A convenience for a response: its body, `Content-Type` and the URL it came from.
    public init(_ response: HTTPResponse, url: String, maximumSize: Int = defaultMaximumSize)
        throws(HTMLDocumentError)
    {
        try self.init(
            bytes: response.body, contentType: response.headers["Content-Type"], url: url,
            maximumSize: maximumSize)
    }

    /// The `charset` parameter of a media type (RFC 9110 §8.3.1), unquoted; `nil` without one.
    /// Read as bytes, since every delimiter is ASCII (`;`, `=`, `"`): no String per part.
    static func charset(inContentType contentType: String) -> String? {
        let quote = UInt8(ascii: "\"")
        for parameter in contentType.utf8.split(separator: UInt8(ascii: ";")).dropFirst() {
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let rawValue = parameter[parameter.index(after: equals)...]
            guard !rawValue.isEmpty,
                HTMLWhitespace.strip(parameter[..<equals]).elementsEqual(
                    "charset".utf8, by: { $0 | 0x20 == $1 })
            else { continue }
            var value = HTMLWhitespace.strip(rawValue)
            if value.count >= 2, value.first == quote, value.last == quote {
                value = value.dropFirst().dropLast()
            }
            return value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
        }
        return nil
    }
}

/// Why a page could not be read as HTML (HTML Living Standard §13.2 parsing, as libxml2 does it).
public struct HTMLDocumentError: CodedError {
    public enum Code: String, Hashable, Sendable {
        /// The page is larger than the reader's limit.
        case tooLarge = "too_large"
        /// libxml2 could build no document at all (an empty body, for one).
        case unreadable
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
