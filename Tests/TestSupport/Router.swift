public import HTTPCore

/// Dispatches requests by method and path.
///
/// Paths are matched on the percent-encoded request path, segment by segment:
/// - exact: `/oauth/token`;
/// - named segments: `/_admin/users/:id` matches `/_admin/users/42` and captures `id` = `42`
///   (percent-decoded);
/// - prefix: `/static/*` matches `/static` and everything below it, and captures the rest as
///   `Parameters.remainder`.
///
/// When several routes match, exact ones win over named segments, which win over prefixes
/// (longest prefix first); among equals, the first added wins. A path that matches only routes
/// of other methods is answered 405 with `Allow`; `HEAD` falls back to `GET` (the handler sees
/// the `HEAD` request), and the body is dropped while its length stays in `Content-Length`.
public struct Router: Sendable {
    /// A handler that also receives what the route pattern captured.
    public typealias ParameterizedHandler = @Sendable (HTTPRequest, Parameters) async -> HTTPResponse

    /// Values captured by a route pattern.
    public struct Parameters: Hashable, Sendable {
        fileprivate var values: [String: String] = [:]
        /// For a prefix route (`/static/*`), the rest of the path without its leading `/`,
        /// percent-encoding intact; empty for the prefix itself.
        public fileprivate(set) var remainder: String?

        public init() {}

        /// The decoded value of a named segment (`:id` is `parameters["id"]`).
        public subscript(name: String) -> String? { values[name] }
    }

    private enum Segment: Hashable, Sendable {
        case literal(Substring)
        case parameter(String)
    }

    private enum Kind: Int, Comparable {
        case exact = 0
        case named = 1
        case prefix = 2

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Route: Sendable {
        var pattern: String
        var kind: Kind
        var segments: [Segment]
        var handlers: [HTTPMethod: ParameterizedHandler] = [:]
        var methodOrder: [HTTPMethod] = []
    }

    private var exactRoutes: [String: Int] = [:]
    private var routes: [Route] = []

    public init() {}

    /// Adds a route; a later handler for the same method and pattern replaces the earlier one.
    public mutating func add(_ method: HTTPMethod, _ path: String, _ handler: @escaping HTTPHandler) {
        add(method, path, withParameters: { request, _ in await handler(request) })
    }

    /// Adds a route whose handler receives the captured segments.
    public mutating func add(
        _ method: HTTPMethod, _ path: String, withParameters handler: @escaping ParameterizedHandler
    ) {
        precondition(path.hasPrefix("/"), "route paths start with /: \(path)")
        let index: Int
        if let existing = routes.firstIndex(where: { $0.pattern == path }) {
            index = existing
        } else {
            routes.append(Self.makeRoute(path))
            index = routes.count - 1
            if routes[index].kind == .exact { exactRoutes[path] = index }
        }
        if routes[index].handlers.updateValue(handler, forKey: method) == nil {
            routes[index].methodOrder.append(method)
        }
    }

    private static func makeRoute(_ pattern: String) -> Route {
        var text = Substring(pattern)
        var kind = Kind.exact
        if text.hasSuffix("/*") {
            kind = .prefix
            text = text.dropLast(2)
        }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            piece -> Segment in
            piece.hasPrefix(":") && piece.count > 1 ? .parameter(String(piece.dropFirst())) : .literal(piece)
        }
        if kind == .exact && segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
            kind = .named
        }
        return Route(pattern: pattern, kind: kind, segments: kind == .prefix && text.isEmpty ? [] : segments)
    }

    /// Answers with the matching route's handler, 404 when no route matches the path, 405 when
    /// only other methods do.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let path = request.path
        let candidates = matches(for: path)
        guard !candidates.isEmpty else {
            return .json(
                ["error": "not_found", "error_description": .string("no route for \(path.prefix(200))")],
                status: 404)
        }
        for (route, parameters) in candidates {
            if let handler = routes[route].handlers[request.method] {
                return await handler(request, parameters)
            }
        }
        if request.method == .head {
            for (route, parameters) in candidates {
                if let handler = routes[route].handlers[.get] {
                    var response = await handler(request, parameters)
                    if !response.headers.contains("Content-Length") {
                        response.headers.add(name: "Content-Length", value: String(response.body.count))
                    }
                    response.body = []
                    return response
                }
            }
        }
        var allowed: [String] = []
        for (route, _) in candidates {
            for method in routes[route].methodOrder where !allowed.contains(method.rawValue) {
                allowed.append(method.rawValue)
                if method == .get && !allowed.contains("HEAD") { allowed.append("HEAD") }
            }
        }
        return .json(
            [
                "error": "method_not_allowed",
                "error_description": .string("\(request.method) is not allowed here"),
            ],
            status: 405,
            headers: ["Allow": allowed.joined(separator: ", ")])
    }

    /// Routes matching the path, best first.
    private func matches(for path: String) -> [(Int, Parameters)] {
        var result: [(Int, Parameters)] = []
        if let exact = exactRoutes[path] { result.append((exact, Parameters())) }
        let pathSegments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var others: [(index: Int, parameters: Parameters, kind: Kind, length: Int)] = []
        for (index, route) in routes.enumerated() where route.kind != .exact {
            if let parameters = Self.match(route, pathSegments) {
                others.append((index, parameters, route.kind, route.segments.count))
            }
        }
        others.sort { lhs, rhs in
            if lhs.kind != rhs.kind { return lhs.kind < rhs.kind }
            if lhs.kind == .prefix && lhs.length != rhs.length { return lhs.length > rhs.length }
            return lhs.index < rhs.index
        }
        result.append(contentsOf: others.map { ($0.index, $0.parameters) })
        return result
    }

    private static func match(_ route: Route, _ path: ArraySlice<Substring>) -> Parameters? {
        if route.kind == .prefix {
            guard path.count >= route.segments.count else { return nil }
        } else {
            guard path.count == route.segments.count else { return nil }
        }
        var parameters = Parameters()
        for (segment, piece) in zip(route.segments, path) {
            switch segment {
            case .literal(let literal):
                guard literal == piece else { return nil }
            case .parameter(let name):
                guard !piece.isEmpty else { return nil }
                parameters.values[name] =
                    (try? FormURLEncoding.unescape(piece.replacing("+", with: "%2B")))
                    ?? String(piece)
            }
        }
        if route.kind == .prefix {
            parameters.remainder = path.dropFirst(route.segments.count).joined(separator: "/")
        }
        return parameters
    }
}
