/// What a verifier expects of a JWT's claims, and the time to judge it at.
///
/// Pure: the time is a parameter, never read from a clock here.
public struct JWTValidation: Sendable, Hashable {
    /// Seconds since the epoch at which the token is judged.
    public var now: Int64
    /// Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (Auth0.swift 60, AppAuth 0 on `exp`).
    public var leeway: Int64
    /// Expected `iss`; compared with trailing slashes removed (field bug 15).
    public var issuer: String?
    /// Expected audience (the client id); `aud` must contain it.
    public var audience: String?
    /// Expected `nonce` (OpenID Connect Core §3.1.3.7 step 11).
    public var nonce: String?
    /// How far in the future `iat` may lie; `nil` uses `leeway`. AppAuth allows 600 s.
    public var issuedAtFutureTolerance: Int64?
    /// How far in the past `iat` may lie; `nil` sets no bound (only `exp` limits a token's
    /// age). AppAuth-iOS refuses an ID token whose `iat` is more than 600 s from now either way.
    public var issuedAtPastTolerance: Int64?
    /// Whether `iat` must be present (OpenID Connect Core §2 requires it in ID tokens).
    public var requireIssuedAt: Bool
    /// Whether `sub` must be present (required in ID tokens).
    public var requireSubject: Bool

    public init(
        now: Int64, leeway: Int64 = 0, issuer: String? = nil, audience: String? = nil, nonce: String? = nil,
        issuedAtFutureTolerance: Int64? = nil, issuedAtPastTolerance: Int64? = nil,
        requireIssuedAt: Bool = false,
        requireSubject: Bool = false
    ) {
        self.now = now
        self.leeway = leeway
        self.issuer = issuer
        self.audience = audience
        self.nonce = nonce
        self.issuedAtFutureTolerance = issuedAtFutureTolerance
        self.issuedAtPastTolerance = issuedAtPastTolerance
        self.requireIssuedAt = requireIssuedAt
        self.requireSubject = requireSubject
    }

    /// The checks an OpenID Connect relying party applies to an ID token (Core §3.1.3.7).
    public static func idToken(
        issuer: String, clientID: String, nonce: String?, now: Int64, leeway: Int64 = 60
    ) -> JWTValidation {
        JWTValidation(
            now: now, leeway: leeway, issuer: issuer, audience: clientID, nonce: nonce, requireIssuedAt: true,
            requireSubject: true)
    }

    /// Normalises an issuer identifier for comparison: trailing slashes do not make a new issuer.
    public static func normalizedIssuer(_ issuer: String) -> Substring {
        var value = Substring(issuer)
        while value.count > 1, value.last == "/" { value = value.dropLast() }
        return value
    }
}

extension JWTClaims {
    /// Applies every check in `validation` and throws the first that fails.
    ///
    /// `exp` is always required and checked (RFC 7519 §4.1.4): a token that never expires is
    /// not accepted here.
    public func validate(_ validation: JWTValidation) throws(JOSEError) {
        let now = validation.now
        let leeway = max(0, validation.leeway)
        guard let expiresAt else { throw JOSEError(.missingClaim, "the token has no exp") }
        // The sums saturate: a leeway or a time as large as Int64 allows (given on a command
        // line, say) must widen the window as far as it goes, never trap.
        guard now < Self.saturatingSum(expiresAt, leeway) else {
            throw JOSEError(.expired, "the token expired at \(expiresAt); now is \(now) (leeway \(leeway) s)")
        }
        if let notBefore, Self.saturatingSum(now, leeway) < notBefore {
            throw JOSEError(
                .notYetValid, "the token is not valid before \(notBefore); now is \(now) (leeway \(leeway) s)"
            )
        }
        if let issuedAt {
            let tolerance = max(0, validation.issuedAtFutureTolerance ?? leeway)
            if issuedAt > Self.saturatingSum(now, tolerance) {
                throw JOSEError(
                    .issuedInFuture,
                    "the token was issued at \(issuedAt), in the future; now is \(now) (tolerance \(tolerance) s)"
                )
            }
            // `-past` cannot overflow: `past` is not negative.
            if let past = validation.issuedAtPastTolerance,
                issuedAt < Self.saturatingSum(now, -max(0, past))
            {
                throw JOSEError(
                    .issuedTooLongAgo,
                    "the token was issued at \(issuedAt), more than \(max(0, past)) s before now (\(now))")
            }
        } else if validation.requireIssuedAt {
            throw JOSEError(.missingClaim, "the token has no iat")
        }
        if validation.requireSubject, (subject ?? "").isEmpty {
            throw JOSEError(.missingClaim, "the token has no sub")
        }
        if let expected = validation.issuer {
            guard let issuer else { throw JOSEError(.missingClaim, "the token has no iss") }
            guard JWTValidation.normalizedIssuer(issuer) == JWTValidation.normalizedIssuer(expected) else {
                throw JOSEError(.issuerMismatch, "iss is \"\(issuer.prefix(200))\"; expected \"\(expected)\"")
            }
        }
        if let expected = validation.audience {
            guard let audience else { throw JOSEError(.missingClaim, "the token has no aud") }
            guard audience.contains(expected) else {
                throw JOSEError(
                    .audienceMismatch, "aud \(audience.values.prefix(5)) does not contain \"\(expected)\"")
            }
            // OpenID Connect Core §3.1.3.7 steps 4–5: with several audiences azp should be
            // present, and when present it must be this client.
            if audience.values.count > 1, authorizedParty == nil {
                throw JOSEError(.missingClaim, "aud names several audiences but azp is absent")
            }
            if let authorizedParty, authorizedParty != expected {
                throw JOSEError(
                    .authorizedPartyMismatch,
                    "azp is \"\(authorizedParty.prefix(200))\"; expected \"\(expected)\"")
            }
        }
        if let expected = validation.nonce {
            guard let nonce else { throw JOSEError(.missingClaim, "the token has no nonce") }
            guard nonce.utf8.elementsEqual(expected.utf8) else {
                throw JOSEError(.nonceMismatch, "nonce does not match the one sent")
            }
        }
    }

    /// `a + b`, or the nearest end of `Int64`'s range when the sum overflows.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }
}
