/// Whether the issuer serves pushed authorization requests (RFC 9126), and whether it insists on
/// them (the tenant's `pushed_authorization_requests`).
public enum PushedAuthorizationPolicy: String, Sendable, Hashable, CaseIterable {
    /// No `/par` endpoint, nothing in discovery; a `request_uri` at `/authorize` is
    /// `request_uri_not_supported`, as before (the default).
    case off
    /// `/par` is served and advertised (RFC 9126 §5); plain authorization requests still work.
    case allowed
    /// As `allowed`, and every authorization request must come through `/par`: discovery says
    /// `require_pushed_authorization_requests: true`, and a plain request is refused (RFC 9126 §5).
    case required

    /// Whether `/par` is served and advertised.
    public var servesPushedRequests: Bool { self != .off }
}
