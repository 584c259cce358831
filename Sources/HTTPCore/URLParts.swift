import Foundation

/// The parts of an absolute URL (RFC 3986 §3), with percent-encoding left intact.
///
/// Works for custom schemes (`com.example.app://auth/callback?code=…`, `com.example.app:/cb`)
/// as well as `http` and `https`, which matters for native-app redirect URIs (RFC 8252 §7.1).
public struct URLParts: Hashable, Sendable {
    public var scheme: String
    public var host: String?
    public var port: Int?
    public var path: String
    public var query: String?
    public var fragment: String?

    /// Parses an absolute URL with Foundation's `URLComponents`; `nil` when it has no scheme or
    /// is not a URL. Scheme and host come back lowercased, the other parts as written.
    ///
    /// A byte-level reader of the common URL once stood in front of `URLComponents`; it bought
    /// 6-8 µs of a web flow's 8 parses, 0.2-0.3% of the flow, under the 2% a hand-written parser
    /// must buy, and was removed (docs/benchmarks.md).
    public init?(_ string: String) {
        guard let components = URLComponents(string: string), let scheme = components.scheme else {
            return nil
        }
        self.scheme = scheme.lowercased()
        self.host = components.percentEncodedHost.map { $0.lowercased() }
        self.port = components.port
        self.path = components.percentEncodedPath
        self.query = components.percentEncodedQuery
        self.fragment = components.percentEncodedFragment
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// `scheme://host[:port]`, or `nil` without a host.
    public var origin: String? {
        guard let host else { return nil }
        return port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// Whether the host is a loopback literal (RFC 8252 §7.3 and §8.3: `127.0.0.1` or `[::1]`).
    public var isLoopback: Bool {
        guard let host else { return false }
        return host == "127.0.0.1" || host == "[::1]" || host == "::1" || host == "localhost"
    }

    // The three below run for every request a server answers: they search UTF-8 bytes, not
    // Characters, and allocate only the String they return. Every delimiter they look for is
    // ASCII, so each index found is a valid String index.

    /// The path of any URL or request target, without query and fragment; `/` when empty.
    public static func path(of url: String) -> String {
        let utf8 = url.utf8
        let end = endOfPath(utf8)
        var start = utf8.startIndex
        if let authority = indexAfterSchemeSeparator(utf8[..<end]) {
            guard let slash = utf8[authority..<end].firstIndex(of: UInt8(ascii: "/")) else { return "/" }
            start = slash
        }
        return start == end ? "/" : String(url[start..<end])
    }

    /// The raw query string of any URL, or `nil`.
    public static func query(of url: String) -> String? {
        let utf8 = url.utf8
        guard let question = utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let start = utf8.index(after: question)
        let end = utf8[start...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        return String(url[start..<end])
    }

    /// The query of any URL decoded as `application/x-www-form-urlencoded`; empty without one.
    public static func queryParameters(of url: String) throws(HTTPError) -> FormParameters {
        guard let query = query(of: url) else { return FormParameters() }
        return try FormURLEncoding.decode(query)
    }

    /// `scheme://host[:port]` of an absolute URL with an authority (RFC 3986 §3.2), lowercased
    /// as `origin` is and without the user information, found without parsing the rest: for
    /// paths that key many requests. `nil` without a scheme, an authority or a host.
    public static func origin(of url: String) -> String? {
        guard let range = authorityRange(of: url) else { return nil }
        let utf8 = url.utf8
        var hostStart = range.lowerBound
        if let at = utf8[range].lastIndex(of: UInt8(ascii: "@")) { hostStart = utf8.index(after: at) }
        var authority = url[hostStart..<range.upperBound]
        if authority.utf8.last == UInt8(ascii: ":") { authority = authority.dropLast() }
        guard !authority.isEmpty else { return nil }
        // The authority follows `scheme://`, so the scheme ends three bytes before it.
        let scheme = url[..<utf8.index(range.lowerBound, offsetBy: -3)]
        return scheme.lowercased() + "://" + authority.lowercased()
    }

    /// Where the authority of `scheme://authority…` lies (RFC 3986 §3.2), user information
    /// and port included; `nil` without a valid scheme or without `//`.
    public static func authorityRange(of url: String) -> Range<String.Index>? {
        let utf8 = url.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), let first = utf8.first, isLetter(first),
            utf8[..<colon].allSatisfy(isSchemeByte)
        else { return nil }
        let afterColon = utf8.index(after: colon)
        guard utf8[afterColon...].starts(with: "//".utf8) else { return nil }
        let start = utf8.index(afterColon, offsetBy: 2)
        return start..<(utf8[start...].firstIndex(where: endsAuthority) ?? utf8.endIndex)
    }

    /// `/`, `?` and `#`: what ends an authority (RFC 3986 §3.2).
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// The URL with query and fragment removed.
    public static func stripQueryAndFragment(_ url: String) -> String {
        let end = endOfPath(url.utf8)
        return end == url.endIndex ? url : String(url[..<end])
    }

    /// Where the query or the fragment starts, or the end.
    private static func endOfPath(_ utf8: String.UTF8View) -> String.Index {
        utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
    }

    /// The index right after the first `://`, if there is one.
    private static func indexAfterSchemeSeparator(_ utf8: Substring.UTF8View) -> String.Index? {
        var index = utf8.startIndex
        while let colon = utf8[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = utf8[utf8.index(after: colon)...]
            if rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) {
                return utf8.index(colon, offsetBy: 3)
            }
            index = utf8.index(after: colon)
        }
        return nil
    }
}
