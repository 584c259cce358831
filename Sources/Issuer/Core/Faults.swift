public import WorldVocabulary

/// What the issuer does with each fault: which change its ID tokens, which answer in an
/// endpoint's place.
extension IssuerFault {
    /// Faults that change an ID token the issuer mints.
    var affectsIDToken: Bool {
        switch self {
        case .idTokenIssuerMismatch, .idTokenSubjectMissing, .idTokenAudienceMismatch,
            .idTokenAudienceMissing,
            .idTokenIssuedAtMissing, .idTokenKidAbsentSingleKey, .idTokenKidAbsentMultipleKeys,
            .idTokenUnsigned,
            .idTokenBadSignatureRS256, .idTokenBadSignatureES256, .idTokenBadSignatureHS256, .idTokenExpired,
            .idTokenIssuedInFuture, .idTokenNotYetValid, .nonceInvalid, .idTokenBadAccessTokenHash,
            .idTokenAccessTokenHashMissing:
            true
        default: false
        }
    }

    /// Faults that answer in the endpoint's place (or hold or drop the exchange), decided when
    /// the request arrives.
    var isTransportFault: Bool {
        switch self {
        case .internalServerError, .serviceUnavailable, .rateLimited, .delay, .dropConnection, .htmlErrorPage,
            .oauthError:
            true
        default: false
        }
    }
}

/// One fault and how many more times it applies.
public struct FaultInjection: Sendable, Hashable {
    /// How long `http-delay` holds a request unless told.
    public static let defaultDelayMilliseconds = 1000

    public var fault: IssuerFault
    public var remaining: Int
    /// Only requests to this path (transport faults); `nil` for any path but `/_admin/`.
    public var path: String?
    /// For `http-delay`: how long, in milliseconds.
    public var delayMilliseconds: Int
    /// For `http-429`: the `Retry-After` value, in seconds.
    public var retryAfterSeconds: Int
    /// For `http-html-error` (default 502) and `oauth-error` (default 400): the status answered.
    public var status: Int?
    /// For `oauth-error`: the error code (default `server_error`) and its description.
    public var error: String?
    public var errorDescription: String?

    public init(
        fault: IssuerFault, count: Int = 1, path: String? = nil,
        delayMilliseconds: Int = FaultInjection.defaultDelayMilliseconds,
        retryAfterSeconds: Int = 30, status: Int? = nil, error: String? = nil, errorDescription: String? = nil
    ) {
        self.fault = fault
        self.remaining = max(1, count)
        self.path = path
        self.delayMilliseconds = delayMilliseconds
        self.retryAfterSeconds = retryAfterSeconds
        self.status = status
        self.error = error
        self.errorDescription = errorDescription
    }
}

/// The faults waiting to happen, consumed in the order they were added.
struct FaultPlan: Sendable {
    private(set) var injections: [FaultInjection] = []

    mutating func add(_ injection: FaultInjection) { injections.append(injection) }
    mutating func removeAll() { injections.removeAll() }

    /// Takes one occurrence of the first fault that `matches`, if any.
    mutating func take(where matches: (FaultInjection) -> Bool) -> FaultInjection? {
        guard let index = injections.firstIndex(where: matches) else { return nil }
        let injection = injections[index]
        injections[index].remaining -= 1
        if injections[index].remaining <= 0 { injections.remove(at: index) }
        return injection
    }

    /// Takes one occurrence of a specific fault.
    mutating func take(_ fault: IssuerFault) -> Bool { take { $0.fault == fault } != nil }
}
