/// One sign-in waiting for its callback: the secrets that only the app knows (docs/sdk.md).
public struct PendingAuthorization: Sendable, Hashable {
    public var state: String
    public var nonce: String
    /// The PKCE `code_verifier` (RFC 7636 §4.1).
    public var codeVerifier: String
    public var redirectURI: String
    public var scopes: [String]
    /// Device time at which the authorize URL was built.
    public var createdAt: Int64

    public init(
        state: String, nonce: String, codeVerifier: String, redirectURI: String, scopes: [String],
        createdAt: Int64
    ) {
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.createdAt = createdAt
    }
}

/// The pending records keyed by `state`, each consumed at most once.
///
/// Several sign-ins may be pending at once (the user opened the sheet twice); a callback is
/// matched by its `state` and the record is removed as it is taken, so a replayed callback finds
/// nothing (RFC 6749 §10.12). A pure value: time comes in as a parameter.
public struct PendingAuthorizations: Sendable, Hashable {
    /// Records older than this are dropped when new ones are added (an abandoned sheet).
    public static let lifetime: Int64 = 600

    private var records: [String: PendingAuthorization] = [:]

    public init() {}

    public var count: Int { records.count }

    public func contains(state: String) -> Bool { records[state] != nil }

    /// Adds a record and forgets those that outlived `lifetime`.
    public mutating func authorizationStarted(_ record: PendingAuthorization, now: Int64) {
        records = records.filter { now - $0.value.createdAt <= Self.lifetime }
        records[record.state] = record
    }

    /// Takes the record of a callback's `state`; `nil` when none is pending (unknown or replayed).
    public mutating func callbackReceived(state: String) -> PendingAuthorization? {
        records.removeValue(forKey: state)
    }

    /// Forgets a record whose sheet was canceled or replaced.
    public mutating func authorizationAbandoned(state: String) {
        records.removeValue(forKey: state)
    }
}
