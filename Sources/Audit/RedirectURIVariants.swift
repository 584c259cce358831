import HTTPCore

/// The near misses of a registered redirect URI that an issuer must refuse (RFC 9700 §4.1.3:
/// exact string matching), and the loopback variations RFC 8252 §7.3 and §8.3 speak of.
enum RedirectURIVariants {
    /// The URI with `/audit` added to its path: prefix matching accepts it.
    static func extraPath(_ uri: String) -> String { inserting("/audit", intoPathOf: uri) }

    /// The URI with a trailing slash added to its path.
    static func trailingSlash(_ uri: String) -> String { inserting("/", intoPathOf: uri) }

    /// The URI with a query parameter added (`audit=1`).
    static func extraQuery(_ uri: String) -> String {
        let (base, query, fragment) = split(uri)
        return base + "?" + (query.map { $0 + "&" } ?? "") + "audit=1" + (fragment ?? "")
    }

    /// The URI with its path's letters in the other case; nil when its path has no letters.
    static func otherCase(_ uri: String) -> String? {
        guard let range = pathRange(uri) else { return nil }
        let path = uri[range]
        let swapped = String(
            path.map { $0.isUppercase ? Character($0.lowercased()) : Character($0.uppercased()) })
        guard swapped != path else { return nil }
        return uri.replacingCharacters(in: range, with: swapped)
    }

    /// The URI with `audit@` before its host: a user part, which reads to a person as the host.
    static func userInfo(_ uri: String) -> String? {
        guard let authority = URLParts.authorityRange(of: uri) else { return nil }
        return String(uri[..<authority.lowerBound]) + "audit@" + String(uri[authority.lowerBound...])
    }

    /// The loopback URI on another port than it names (51234, or 51235 if it names that one).
    static func otherPort(_ uri: String) -> String? {
        guard let parts = URLParts(uri), isLoopback(uri), let authority = URLParts.authorityRange(of: uri)
        else {
            return nil
        }
        let port = parts.port == 51234 ? 51235 : 51234
        let host = parts.host ?? "127.0.0.1"
        return String(uri[..<authority.lowerBound]) + "\(host):\(port)" + String(uri[authority.upperBound...])
    }

    /// The loopback URI with `localhost` for its address, on another port.
    static func localhost(_ uri: String) -> String? {
        guard let other = otherPort(uri), let parts = URLParts(other), let host = parts.host,
            let authority = URLParts.authorityRange(of: other)
        else { return nil }
        let authorityText = String(other[authority]).replacingOccurrences(of: host, with: "localhost")
        return String(other[..<authority.lowerBound]) + authorityText + String(other[authority.upperBound...])
    }

    /// Whether the URI is an http loopback IP literal redirect (RFC 8252 §7.3).
    static func isLoopback(_ uri: String) -> Bool {
        guard let parts = URLParts(uri), parts.scheme == "http" else { return false }
        return parts.host == "127.0.0.1" || parts.host == "[::1]"
    }

    /// Whether the URI is a private-use scheme redirect (RFC 8252 §7.1): a scheme other than
    /// `http` and `https`.
    static func isPrivateUse(_ uri: String) -> Bool {
        guard let colon = uri.firstIndex(of: ":"), colon > uri.startIndex else { return false }
        let scheme = uri[..<colon].lowercased()
        return scheme != "http" && scheme != "https"
            && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    /// Whether `callback` (where the sheet ended) is `variant`: the same URI up to its query,
    /// with every query parameter the variant has.
    static func landed(_ callback: String, on variant: String) -> Bool {
        let (callbackBase, callbackQuery, _) = split(callback)
        let (variantBase, variantQuery, _) = split(variant)
        guard callbackBase == variantBase else { return false }
        guard let variantQuery else { return true }
        let present = (try? FormURLEncoding.decode(callbackQuery ?? "")) ?? FormParameters()
        let wanted = (try? FormURLEncoding.decode(variantQuery)) ?? FormParameters()
        return wanted.allSatisfy { present[$0.name] == $0.value }
    }

    private static func inserting(_ text: String, intoPathOf uri: String) -> String {
        let (base, query, fragment) = split(uri)
        let trimmed = text == "/" || !base.hasSuffix("/") ? base : String(base.dropLast())
        return trimmed + text + (query.map { "?" + $0 } ?? "") + (fragment ?? "")
    }

    /// The URI up to its query, its query (without `?`), and its fragment (with `#`).
    private static func split(_ uri: String) -> (base: String, query: String?, fragment: String?) {
        var rest = Substring(uri)
        var fragment: String?
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), nil, fragment) }
        return (String(rest[..<mark]), String(rest[rest.index(after: mark)...]), fragment)
    }

    /// Where the path is in `uri`: after the authority, up to the query or fragment.
    private static func pathRange(_ uri: String) -> Range<String.Index>? {
        guard let authority = URLParts.authorityRange(of: uri) else { return nil }
        let end = uri[authority.upperBound...].firstIndex { $0 == "?" || $0 == "#" } ?? uri.endIndex
        return authority.upperBound..<end
    }
}
