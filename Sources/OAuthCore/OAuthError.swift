public import HTTPCore
public import JSON

/// An OAuth 2.0 error response (RFC 6749 §5.2, §4.1.2.1; RFC 6750 §3; RFC 9449 §7).
///
/// Renders itself as the JSON body `{"error", "error_description"}` with the status the
/// specification gives; descriptions never contain secrets or whole tokens.
public struct OAuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `error` code, e.g. `invalid_grant`.
    public let code: String
    /// The `error_description`, for people.
    public let description: String
    /// The HTTP status of the response carrying it.
    public let status: Int
    /// Extra response headers (`WWW-Authenticate`, `DPoP-Nonce`, `Retry-After`).
    public var headers: HTTPHeaders

    public init(_ code: String, _ description: String, status: Int = 400, headers: HTTPHeaders = [:]) {
        self.code = code
        self.description = description
        self.status = status
        self.headers = headers
    }

    // RFC 6749 §5.2
    public static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(OAuthErrorCode.invalidRequest, description)
    }
    /// 401, with `WWW-Authenticate` when the client tried HTTP authentication (RFC 6749 §5.2).
    public static func invalidClient(_ description: String, basicChallenge: Bool = false) -> OAuthError {
        var headers: HTTPHeaders = [:]
        if basicChallenge { headers["WWW-Authenticate"] = "Basic realm=\"signinsim\"" }
        return OAuthError(OAuthErrorCode.invalidClient, description, status: 401, headers: headers)
    }
    public static func invalidGrant(_ description: String, status: Int = 400) -> OAuthError {
        OAuthError(OAuthErrorCode.invalidGrant, description, status: status)
    }
    public static func unauthorizedClient(_ description: String) -> OAuthError {
        OAuthError(OAuthErrorCode.unauthorizedClient, description)
    }
    public static func unsupportedGrantType(_ description: String) -> OAuthError {
        OAuthError(OAuthErrorCode.unsupportedGrantType, description)
    }
    public static func invalidScope(_ description: String) -> OAuthError {
        OAuthError(OAuthErrorCode.invalidScope, description)
    }
    /// RFC 8693 §2.2.2.
    public static func invalidTarget(_ description: String) -> OAuthError {
        OAuthError(OAuthErrorCode.invalidTarget, description)
    }
    /// RFC 9449 §7.1.
    public static func invalidDPoPProof(_ description: String) -> OAuthError {
        OAuthError(OAuthErrorCode.invalidDPoPProof, description)
    }
    /// RFC 6750 §3.1: 401 with a Bearer (or DPoP) challenge.
    public static func invalidToken(_ description: String, scheme: String = "Bearer") -> OAuthError {
        let challenge =
            "\(scheme) error=\"\(OAuthErrorCode.invalidToken)\", error_description=\"\(description.replacingQuotes())\""
        return OAuthError(
            OAuthErrorCode.invalidToken, description, status: 401, headers: ["WWW-Authenticate": challenge])
    }

    /// The JSON object of the error.
    public var json: JSONValue {
        [OAuthParameter.error: .string(code), OAuthParameter.errorDescription: .string(description)]
    }

    /// The error as an HTTP response, with `Cache-Control: no-store` (RFC 6749 §5.1).
    public var response: HTTPResponse {
        var headers = self.headers
        headers["Cache-Control"] = "no-store"
        headers["Pragma"] = "no-cache"
        return .json(json, status: status, headers: headers)
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        String(unicodeScalars.map { $0 == "\"" || $0 == "\\" ? "'" : Character($0) })
    }
}
