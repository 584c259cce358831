public import HTTPCore

/// Which requests a fault applies to: by host (RFC 3986 §3.2.2), by path prefix (§3.3), or both;
/// `nil` matches any.
public struct RequestMatch: Hashable, Sendable, CustomStringConvertible {
    /// Compared case-insensitively with the URL's host.
    public var host: String?
    /// Compared with the start of the URL's path.
    public var pathPrefix: String?

    public init(host: String? = nil, pathPrefix: String? = nil) {
        self.host = host?.lowercased()
        self.pathPrefix = pathPrefix
    }

    /// Every request.
    public static let any = RequestMatch()

    public func matches(_ request: HTTPRequest) -> Bool {
        if let host, URLParts(request.url)?.host != host { return false }
        if let pathPrefix, !request.path.hasPrefix(pathPrefix) { return false }
        return true
    }

    public var description: String {
        switch (host, pathPrefix) {
        case (nil, nil): "any request"
        case (let host?, nil): "host \(host)"
        case (nil, let prefix?): "path \(prefix)*"
        case (let host?, let prefix?): "\(host)\(prefix)*"
        }
    }
}
