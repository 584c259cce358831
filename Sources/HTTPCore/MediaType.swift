/// Media types the simulator speaks, and helpers to compare them.
public enum MediaType {
    public static let json = "application/json"
    public static let formURLEncoded = "application/x-www-form-urlencoded"
    public static let html = "text/html"

    /// The type and subtype without parameters, lowercased: `Application/JSON; charset=utf-8`
    /// becomes `application/json` (RFC 9110 §8.3.1).
    public static func essence(_ contentType: String) -> String {
        // Almost every request says it plainly: lowercase, no parameters, no spaces.
        let isPlain =
            !contentType.isEmpty
            && contentType.utf8.allSatisfy {
                $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t")
                    && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) && $0 < 0x80
            }
        if isPlain { return contentType }
        let end = contentType.firstIndex(of: ";") ?? contentType.endIndex
        return contentType[..<end].trimmingSpaces().lowercased()
    }

    /// `application/json` or any `+json` structured syntax suffix (RFC 6839 §3.1).
    public static func isJSON(_ essence: String) -> Bool {
        essence == json || essence.hasSuffix("+json")
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
