public import JSON

/// The `aud` claim: one audience or several (RFC 7519 §4.1.3).
public enum Audience: Sendable, Hashable {
    case single(String)
    case multiple([String])

    public var values: [String] {
        switch self {
        case .single(let value): [value]
        case .multiple(let values): values
        }
    }

    public func contains(_ audience: String) -> Bool { values.contains(audience) }

    var json: JSONValue {
        switch self {
        case .single(let value): .string(value)
        case .multiple(let values): .array(values.map(JSONValue.string))
        }
    }
}

/// A JWT claims set (RFC 7519 §4) with the registered claims and the OpenID Connect ones the
/// simulator checks typed; every other claim is kept in `otherClaims`.
///
/// NumericDate values are whole seconds since the epoch; fractional values are truncated.
public struct JWTClaims: Sendable, Hashable {
    /// `iss` (RFC 7519 §4.1.1).
    public var issuer: String?
    /// `sub` (RFC 7519 §4.1.2).
    public var subject: String?
    /// `aud` (RFC 7519 §4.1.3).
    public var audience: Audience?
    /// `exp` (RFC 7519 §4.1.4).
    public var expiresAt: Int64?
    /// `nbf` (RFC 7519 §4.1.5).
    public var notBefore: Int64?
    /// `iat` (RFC 7519 §4.1.6).
    public var issuedAt: Int64?
    /// `jti` (RFC 7519 §4.1.7).
    public var jwtID: String?
    /// `azp` (OpenID Connect Core §2): the party the ID token was issued to.
    public var authorizedParty: String?
    /// `nonce` (OpenID Connect Core §2).
    public var nonce: String?
    /// Every other claim.
    public var otherClaims: [String: JSONValue]

    public init(
        issuer: String? = nil, subject: String? = nil, audience: Audience? = nil, expiresAt: Int64? = nil,
        notBefore: Int64? = nil, issuedAt: Int64? = nil, jwtID: String? = nil, authorizedParty: String? = nil,
        nonce: String? = nil, otherClaims: [String: JSONValue] = [:]
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.jwtID = jwtID
        self.authorizedParty = authorizedParty
        self.nonce = nonce
        self.otherClaims = otherClaims
    }

    public subscript(claim: String) -> JSONValue? {
        get { json[claim] }
    }

    /// Reads a claims set, checking the types of the claims modelled here.
    public init(json members: [String: JSONValue]) throws(JOSEError) {
        var rest = members
        func string(_ name: String) throws(JOSEError) -> String? {
            guard let value = rest.removeValue(forKey: name) else { return nil }
            guard let text = value.stringValue else {
                throw JOSEError(.invalidClaim, "\(name) must be a string, not a \(value.typeName)")
            }
            return text
        }
        func date(_ name: String) throws(JOSEError) -> Int64? {
            guard let value = rest.removeValue(forKey: name) else { return nil }
            guard let seconds = value.doubleValue, seconds.isFinite, abs(seconds) < 1e15 else {
                throw JOSEError(
                    .invalidClaim, "\(name) must be a NumericDate (a number), not a \(value.typeName)")
            }
            return value.int64Value ?? Int64(seconds.rounded(.towardZero))
        }
        issuer = try string("iss")
        subject = try string("sub")
        jwtID = try string("jti")
        authorizedParty = try string("azp")
        nonce = try string("nonce")
        expiresAt = try date("exp")
        notBefore = try date("nbf")
        issuedAt = try date("iat")
        if let aud = rest.removeValue(forKey: "aud") {
            switch aud {
            case .string(let value): audience = .single(value)
            case .array(let values):
                let strings = values.compactMap(\.stringValue)
                guard strings.count == values.count else {
                    throw JOSEError(.invalidClaim, "aud must be a string or an array of strings")
                }
                audience = .multiple(strings)
            default: throw JOSEError(.invalidClaim, "aud must be a string or an array of strings")
            }
        }
        otherClaims = rest
    }

    /// The claims as a JSON object.
    public var json: JSONValue { .object(jsonMembers) }

    public var jsonMembers: [String: JSONValue] {
        var members = otherClaims
        if let issuer { members["iss"] = .string(issuer) }
        if let subject { members["sub"] = .string(subject) }
        if let audience { members["aud"] = audience.json }
        if let expiresAt { members["exp"] = .int(expiresAt) }
        if let notBefore { members["nbf"] = .int(notBefore) }
        if let issuedAt { members["iat"] = .int(issuedAt) }
        if let jwtID { members["jti"] = .string(jwtID) }
        if let authorizedParty { members["azp"] = .string(authorizedParty) }
        if let nonce { members["nonce"] = .string(nonce) }
        return members
    }
}
