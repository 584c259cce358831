import HTTPCore
import JSON
import OAuthCore

/// An error answer of the provider's Apple endpoints, in Apple's shape.
///
/// Apple's `ErrorResponse` is `{"error": "…"}`; only `invalid_grant` is known to carry an
/// `error_description` ("The code has already been used.", …), so only those errors have one
/// here. Why the request failed is always given, for people, in the `X-SignInSim-Reason` header,
/// which Apple does not send: a real `invalid_client` never says what was wrong with the secret.
struct AppleEndpointError: Error, Sendable {
    var error: String
    var errorDescription: String?
    var reason: String
    var status: Int = 400

    static func invalidRequest(_ reason: String) -> AppleEndpointError {
        AppleEndpointError(error: OAuthErrorCode.invalidRequest, reason: reason)
    }

    static func invalidClient(_ reason: String) -> AppleEndpointError {
        AppleEndpointError(error: OAuthErrorCode.invalidClient, reason: reason)
    }

    static func invalidGrant(_ description: String, reason: String? = nil) -> AppleEndpointError {
        AppleEndpointError(
            error: OAuthErrorCode.invalidGrant, errorDescription: description, reason: reason ?? description)
    }

    static func unsupportedGrantType(_ reason: String) -> AppleEndpointError {
        AppleEndpointError(error: OAuthErrorCode.unsupportedGrantType, reason: reason)
    }

    static func serverError(_ reason: String) -> AppleEndpointError {
        AppleEndpointError(error: OAuthErrorCode.serverError, reason: reason, status: 500)
    }

    /// Apple's two code messages, word for word.
    static let codeAlreadyUsed = "The code has already been used."
    static let codeExpiredOrRevoked = "The code has expired or has been revoked."
    static let tokenExpiredOrRevoked = "The token has expired or has been revoked."

    var response: HTTPResponse {
        var body: [String: JSONValue] = [OAuthParameter.error: .string(error)]
        if let errorDescription { body[OAuthParameter.errorDescription] = .string(errorDescription) }
        return .json(
            .object(body), status: status,
            headers: [
                "Cache-Control": "no-store", "Pragma": "no-cache",
                AppleIDProvider.reasonHeader: AppleEndpointError.headerSafe(reason),
            ])
    }

    /// Header values are one line of visible ASCII; anything else becomes `?`.
    static func headerSafe(_ text: String) -> String {
        String(
            text.prefix(300).unicodeScalars.map {
                ($0.value >= 0x20 && $0.value < 0x7F) ? Character($0) : "?"
            })
    }
}

/// An error answer of the simulator's own `/_admin/` API: `{"error", "error_description"}`.
struct AppleAdminError: Error, Sendable {
    var error: String
    var description: String
    var status: Int = 400
    var extra: [String: JSONValue] = [:]

    static func invalidRequest(_ description: String) -> AppleAdminError {
        AppleAdminError(error: OAuthErrorCode.invalidRequest, description: description)
    }

    var response: HTTPResponse {
        var body = extra
        body[OAuthParameter.error] = .string(error)
        body[OAuthParameter.errorDescription] = .string(description)
        return .json(.object(body), status: status)
    }
}
