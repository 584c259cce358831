/// An HTTP request method (RFC 9110 §9). Any token is allowed; the common ones have names.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public var description: String { rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")
}
