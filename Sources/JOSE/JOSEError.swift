public import Errors

/// Why a JOSE object (JWS, JWK, JWT) was refused. Codes are stable; messages never carry
/// secrets or whole tokens.
public struct JOSEError: CodedError {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // Shape
        case tooLarge = "too_large"
        case malformedToken = "malformed_token"
        case malformedBase64URL = "malformed_base64url"
        case malformedJSON = "malformed_json"
        case malformedHeader = "malformed_header"
        case malformedKey = "malformed_key"
        // Algorithms and keys
        case unsecuredToken = "unsecured_token"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case algorithmNotAllowed = "algorithm_not_allowed"
        case algorithmKeyMismatch = "algorithm_key_mismatch"
        case unsupportedCriticalHeader = "unsupported_critical_header"
        case keyAlgorithmMismatch = "key_algorithm_mismatch"
        case keyUseMismatch = "key_use_mismatch"
        case unknownKey = "unknown_key"
        case ambiguousKey = "ambiguous_key"
        case badSignature = "bad_signature"
        case signingFailed = "signing_failed"
        // Claims
        case invalidClaim = "invalid_claim"
        case missingClaim = "missing_claim"
        case expired = "expired"
        case notYetValid = "not_yet_valid"
        case issuedInFuture = "issued_in_future"
        /// `iat` lies further in the past than the verifier allows (AppAuth's ±600 s rule).
        case issuedTooLongAgo = "issued_too_long_ago"
        case issuerMismatch = "issuer_mismatch"
        case audienceMismatch = "audience_mismatch"
        case authorizedPartyMismatch = "authorized_party_mismatch"
        case nonceMismatch = "nonce_mismatch"
        /// `at_hash` or `c_hash` is not the hash of the value it binds, or a required one is
        /// missing (OpenID Connect Core §3.1.3.8, §3.3.2.10).
        case tokenHashMismatch = "token_hash_mismatch"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

}
