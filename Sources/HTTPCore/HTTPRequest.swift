public import JSON

/// An HTTP request as both the client sends it and the server receives it.
///
/// `url` is absolute on both sides (`https://issuer.example/oauth/token?x=1`): the server
/// rebuilds it from the listener's address so that handlers can reason about their own origin,
/// which is what an OpenID Provider needs to compute its `issuer` and DPoP `htu` values.
public struct HTTPRequest: Hashable, Sendable {
    public var method: HTTPMethod
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Overrides the transport's default time limit for this request alone.
    public var timeout: Duration?

    public init(
        method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

extension HTTPRequest {
    /// A `POST` with an `application/x-www-form-urlencoded` body (RFC 6749 Appendix B).
    public static func form(
        _ method: HTTPMethod = .post, url: String, parameters: FormParameters, headers: HTTPHeaders = [:]
    ) -> HTTPRequest {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: MediaType.formURLEncoded)
        return HTTPRequest(
            method: method, url: url, headers: headers, body: FormURLEncoding.encodedBytes(parameters))
    }

    /// A request with a JSON body.
    public static func json(
        _ method: HTTPMethod = .post, url: String, body: JSONValue, headers: HTTPHeaders = [:]
    ) -> HTTPRequest {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: MediaType.json)
        return HTTPRequest(method: method, url: url, headers: headers, body: body.serialized())
    }

    /// The path of the URL without query or fragment, percent-encoding intact. `/` when empty.
    public var path: String { URLParts.path(of: url) }

    /// The raw query string (after `?`, before `#`), or `nil` when there is none.
    public var query: String? { URLParts.query(of: url) }

    /// The URL without query and fragment, as DPoP's `htu` compares it (RFC 9449 §4.3).
    public var urlWithoutQuery: String { URLParts.stripQueryAndFragment(url) }

    /// Query parameters decoded as `application/x-www-form-urlencoded`.
    public func queryParameters() throws(HTTPError) -> FormParameters {
        try URLParts.queryParameters(of: url)
    }

    /// The media type of the body without parameters, lowercased (`application/json`).
    public var mediaType: String? { headers["Content-Type"].map(MediaType.essence) }

    /// The body decoded as a form; the content type must say so.
    public func formParameters() throws(HTTPError) -> FormParameters {
        guard mediaType == MediaType.formURLEncoded else {
            throw HTTPError(
                .unsupportedMediaType,
                "expected Content-Type \(MediaType.formURLEncoded), got \(headers["Content-Type"] ?? "none")")
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw HTTPError(.malformedBody, "form body is not valid UTF-8")
        }
        return try FormURLEncoding.decode(text)
    }

    /// The body parsed as JSON; the content type must be `application/json` or `+json`.
    public func jsonBody() throws(HTTPError) -> JSONValue {
        guard let mediaType, MediaType.isJSON(mediaType) else {
            throw HTTPError(
                .unsupportedMediaType,
                "expected Content-Type application/json, got \(headers["Content-Type"] ?? "none")")
        }
        do {
            return try JSONValue.parse(body)
        } catch {
            throw HTTPError(.malformedBody, error.message)
        }
    }
}
