/// How much the issuer keeps of what clients can make it create, so that its memory stays
/// bounded whatever they send (docs/issuer.md, "Memory bounds"). Each table forgets its oldest
/// entries first, except the replay caches, which refuse new entries rather than forget ids
/// that are still acceptable.
///
/// The defaults suit `serve` and load tests alike; tests pass smaller ones.
public struct IssuerLimits: Sendable, Hashable {
    /// Requests the log keeps (`GET /_admin/requests`), the oldest dropped first.
    public var requestLogEntries = 10_000
    /// Bytes the request log holds at most (about: text plus a fixed cost per entry and per
    /// parameter), the oldest entries dropped first. Each entry keeps at most
    /// `RequestLogEntry.maximumParameterBytes` of parameters.
    public var requestLogBytes = 16 << 20
    /// Login transactions waiting for the user (one per `GET /authorize`), the oldest forgotten
    /// first; a form of a forgotten one gets the page of an expired one.
    public var pendingTransactions = 10_000
    /// Pushed authorization requests waiting for their `request_uri` (RFC 9126, one per
    /// `POST /par` of an authenticated client), the oldest forgotten first; a forgotten one's
    /// request_uri is then `invalid_request_uri`.
    public var pushedAuthorizationRequests = 10_000
    /// DPoP proof ids remembered for replay detection (RFC 9449 §11.1); when full, new proofs are
    /// refused (503) until the oldest generation of ids has aged out.
    public var dpopProofIDs = 1_000_000
    /// `private_key_jwt` assertion ids remembered until their assertions expire (RFC 7523 §3);
    /// when full, new assertions are refused (503) until the earliest one expires.
    public var clientAssertionIDs = 100_000

    public init() {}

    public static let `default` = IssuerLimits()
}
