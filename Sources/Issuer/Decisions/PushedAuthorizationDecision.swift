import HTTPCore
import OAuthCore

/// A pushed authorization request waiting for its `request_uri` to be used (RFC 9126 §2.2).
struct PushedAuthorizationRecord: Sendable {
    /// The client that pushed it, as it authenticated at the push.
    var clientID: String
    /// The pushed parameters the authorization endpoint reads, `client_id` set to the
    /// authenticated client: validated again as an authorization request when used.
    var parameters: FormParameters
    var expiresAt: Int64
}

/// What a `request_uri` at the authorization endpoint leads to (RFC 9126 §4).
enum PushedRequestDecision: Sendable, Equatable {
    /// The pushed parameters stand for the authorization request; the query's other parameters
    /// are ignored.
    case use(FormParameters)
    /// Refused on the error page, never at a redirect URI: which client sent the browser, and so
    /// where it may be sent back, is not established.
    case refused(OAuthError)
}

extension PushedAuthorizationRecord {
    /// Why an authorization request that names `clientID` (nil without one) may not use this
    /// pushed request at `now`, if it may not: a decision that needs no issuer.
    ///
    /// RFC 9126 §4: the request_uri must not have expired (`invalid_request_uri`, RFC 9101
    /// §6.2), and `client_id` must be there and be the pushing client's (`invalid_request`),
    /// unless the tenant deviates with `par-ignores-client-id`.
    func useProblem(clientID: String?, now: Int64, deviations: Set<IssuerDeviation> = []) -> OAuthError? {
        guard expiresAt > now else {
            return OAuthError(PushedAuthorization.invalidRequestURI, "the request_uri expired")
        }
        guard !deviations.contains(.parIgnoresClientID) else { return nil }
        guard let clientID else {
            return .invalidRequest("client_id is required beside request_uri (RFC 9126 section 4)")
        }
        guard clientID == self.clientID else {
            return .invalidRequest("the request_uri was pushed by another client (RFC 9126 section 4)")
        }
        return nil
    }
}

/// Names of RFC 9126 and the error code it borrows from RFC 9101.
enum PushedAuthorization {
    /// Every `request_uri` the issuer hands out starts with this (RFC 9126 §2.2).
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    /// The `request_uri` is unknown, expired or used up (RFC 9101 §6.2, RFC 9126 §4).
    static let invalidRequestURI = "invalid_request_uri"
    /// The parameter that carries the pushed request's reference (RFC 9126 §4).
    static let requestURIParameter = "request_uri"
}

extension PushedAuthorizationPolicy {
    /// The error an authorization request gets under this policy, if any: one that was not
    /// pushed is `invalid_request` when pushing is required (RFC 9126 §5), unless the tenant
    /// deviates with `par-required-not-enforced`.
    func refusal(pushed: Bool, deviations: Set<IssuerDeviation> = []) -> OAuthError? {
        guard self == .required, !pushed, !deviations.contains(.parRequiredNotEnforced) else { return nil }
        return .invalidRequest(
            "pushed authorization requests are required: push the request to the pushed authorization "
                + "request endpoint and send the request_uri it returns (RFC 9126 section 5)")
    }
}

extension IssuerState {
    /// Uses the pushed request stored under `key` (the hash of its `request_uri`) for an
    /// authorization request naming `clientID` (RFC 9126 §4).
    ///
    /// A request_uri is good for one authorization request (§4 SHOULD): it is used up when it
    /// leads to one, unless the tenant deviates with `par-request-uri-reusable`. A refusal for
    /// the wrong `client_id` leaves it for its client, so that whoever learns a request_uri
    /// cannot spend it; expired ones are left to `sweep`.
    mutating func usePushedRequest(
        _ key: String, clientID: String?, now: Int64, deviations: Set<IssuerDeviation> = []
    ) -> PushedRequestDecision {
        guard let record = pushedRequests[key] else {
            return .refused(
                OAuthError(
                    PushedAuthorization.invalidRequestURI,
                    "the request_uri is unknown, expired or already used"))
        }
        if let problem = record.useProblem(clientID: clientID, now: now, deviations: deviations) {
            return .refused(problem)
        }
        if !deviations.contains(.parRequestURIReusable) { pushedRequests[key] = nil }
        return .use(record.parameters)
    }
}
