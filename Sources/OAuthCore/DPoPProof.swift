import Cryptography
import HTTPCore
public import JOSE
import JSON

/// A DPoP proof JWT (RFC 9449 §4): built by clients, checked by authorization and resource servers.
///
/// `make` is the client half. `parse` and `check` are the stateless server checks of RFC 9449
/// §4.3 (shape, key, signature, `htm`, `htu`, `iat`, `ath`); the stateful ones (`jti` replay,
/// server nonce) belong to whoever keeps the state.
public struct DPoPProof: Sendable, Hashable {
    /// The `typ` header value (RFC 9449 §4.2).
    public static let type = "dpop+jwt"
    /// Longest proof `parse` reads: a proof is a header with one public key and five claims.
    public static let maximumLength = 16 * 1024
    /// Longest `jti` accepted; RFC 9449 §4.2 asks for 96 bits of randomness, not for novels.
    public static let maximumIDLength = 256

    public let algorithm: JWSAlgorithm
    /// The public key from the `jwk` header.
    public let key: JWK
    /// RFC 7638 thumbprint of `key`, which `cnf.jkt` binds tokens to (RFC 9449 §6.1).
    public let thumbprint: String
    /// `jti`.
    public let id: String
    /// `htm`: the HTTP method of the request.
    public let method: String
    /// `htu`: the target URI without query and fragment.
    public let url: String
    /// `iat`.
    public let issuedAt: Int64
    /// `ath`: base64url SHA-256 of the access token, at resources (RFC 9449 §4.2).
    public let accessTokenHash: String?
    /// `nonce`: the server's last `DPoP-Nonce` (RFC 9449 §8).
    public let nonce: String?

    // MARK: - Building (client side)

    /// A signed proof for one request (RFC 9449 §4.2).
    ///
    /// The `jwk` header holds only the public members RFC 7638 names (no `kid`, `alg`, `use`),
    /// and `htu` drops any query and fragment of `url`.
    public static func make(
        signer: JWSSigner, method: String, url: String, accessToken: String? = nil, nonce: String? = nil,
        issuedAt: Int64, id: String
    ) throws(JOSEError) -> String {
        var claims: [String: JSONValue] = [
            "jti": .string(id), "htm": .string(method), "htu": .string(URLParts.stripQueryAndFragment(url)),
            "iat": .int(issuedAt),
        ]
        if let accessToken { claims["ath"] = .string(accessTokenHash(for: accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        // The RFC 7638 members are exactly the public key, in canonical form.
        let publicKey: JSONValue
        do {
            publicKey = try JSONValue.parse(try signer.publicJWK.thumbprintInput())
        } catch {
            throw JOSEError(.malformedKey, "the signer's public key cannot be written as a JWK")
        }
        // The signer's kid names the key in the client's own key store; a proof carries the key itself.
        let anonymous = try JWSSigner(key: signer.key, algorithm: signer.algorithm)
        return try JWS.sign(
            payload: JSONValue.object(claims).serialized(), signer: anonymous,
            extraHeader: ["typ": .string(type), "jwk": publicKey])
    }

    /// `ath`: base64url of the SHA-256 of the access token's ASCII (RFC 9449 §4.2).
    public static func accessTokenHash(for accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(accessToken))
    }

    // MARK: - Checking (server side)

    /// Members a public JWK must not carry: EC/RSA private parts and symmetric key material.
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Parses a proof and checks what does not depend on the request: `typ`, an asymmetric
    /// `alg`, a public `jwk`, the signature with that key, and the claims' presence and types
    /// (RFC 9449 §4.3 checks 2–7).
    /// - Throws: `invalid_dpop_proof` (400) naming the first problem.
    public static func parse(_ compact: String) throws(OAuthError) -> DPoPProof {
        guard !compact.isEmpty else { throw .invalidDPoPProof("the DPoP header is empty") }
        guard compact.utf8.count <= maximumLength else {
            throw .invalidDPoPProof("the DPoP proof is longer than \(maximumLength) bytes")
        }
        let jws: JWS
        do {
            jws = try JWS.parse(compact)
        } catch {
            throw .invalidDPoPProof("the DPoP proof is not a compact JWS: \(error.message)")
        }
        guard let type = jws.header.type, type.caseInsensitiveEquals(DPoPProof.type) else {
            throw .invalidDPoPProof("the DPoP proof's typ must be \"dpop+jwt\"")
        }
        let algorithm: JWSAlgorithm
        do {
            algorithm = try jws.header.validated()
        } catch {
            throw .invalidDPoPProof("the DPoP proof's alg is refused: \(error.message)")
        }
        guard let jwkValue = jws.header.jsonWebKey, let jwkMembers = jwkValue.objectValue else {
            throw .invalidDPoPProof("the DPoP proof has no jwk header holding its public key")
        }
        if let member = jwkMembers.keys.first(where: privateMembers.contains) {
            throw .invalidDPoPProof("the DPoP proof's jwk contains the private member \"\(member)\"")
        }
        let key: JWK
        let thumbprint: String
        do {
            key = try JWK(json: jwkValue)
            thumbprint = try key.thumbprint()
        } catch {
            throw .invalidDPoPProof("the DPoP proof's jwk is not a usable public key: \(error.message)")
        }
        do {
            try jws.verify(with: key)
        } catch {
            throw .invalidDPoPProof(
                "the DPoP proof's signature does not verify with its jwk: \(error.message)")
        }
        let claims: [String: JSONValue]
        do {
            claims = try jws.payloadObject()
        } catch {
            throw .invalidDPoPProof("the DPoP proof's payload is not a JSON object")
        }
        func optionalString(_ name: String) throws(OAuthError) -> String? {
            guard let value = claims[name] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw .invalidDPoPProof("the DPoP proof's \(name) must be a non-empty string")
            }
            return text
        }
        func string(_ name: String) throws(OAuthError) -> String {
            guard let text = try optionalString(name) else {
                throw .invalidDPoPProof("the DPoP proof has no \(name) claim")
            }
            return text
        }
        let id = try string("jti")
        guard id.utf8.count <= maximumIDLength else {
            throw .invalidDPoPProof("the DPoP proof's jti is longer than \(maximumIDLength) bytes")
        }
        let method = try string("htm")
        let url = try string("htu")
        guard let iatValue = claims["iat"] else { throw .invalidDPoPProof("the DPoP proof has no iat claim") }
        guard let seconds = iatValue.doubleValue, seconds.isFinite, abs(seconds) < 1e15 else {
            throw .invalidDPoPProof("the DPoP proof's iat must be a NumericDate")
        }
        return DPoPProof(
            algorithm: algorithm, key: key.publicKey, thumbprint: thumbprint, id: id, method: method,
            url: url,
            issuedAt: Int64(seconds.rounded(.towardZero)),
            accessTokenHash: try optionalString("ath"),
            nonce: try optionalString("nonce"))
    }

    /// Checks the proof against the request it came with (RFC 9449 §4.3 checks 8–12, less the
    /// nonce): `htm`, `htu` (query and fragment ignored, scheme and host case-insensitive,
    /// default ports dropped), `iat` within `window` seconds of `now` either way, and `ath` when
    /// an access token is presented.
    /// - Parameters:
    ///   - urls: the URLs the request may be addressed as (the server's own and the
    ///     listener's, say); `htu` must match one of them.
    ///   - window: how far `iat` may be from `now`; `nil` when the server judges the proof's
    ///     age by its own nonce instead (§4.3 check 11, §11.1), and `iat` is not compared.
    /// - Throws: `invalid_dpop_proof` (400).
    public func check(method: String, urls: [String], now: Int64, window: Int64?, accessToken: String?)
        throws(OAuthError)
    {
        guard self.method == method else {
            throw .invalidDPoPProof(
                "the DPoP proof's htm is \"\(self.method.prefix(16))\"; the request is \(method)")
        }
        guard let claimed = DPoPProof.normalizedURL(url),
            urls.contains(where: { DPoPProof.normalizedURL($0) == claimed })
        else {
            throw .invalidDPoPProof("the DPoP proof's htu \"\(url.prefix(200))\" is not this endpoint")
        }
        if let window, abs(issuedAt - now) > window {
            throw .invalidDPoPProof(
                "the DPoP proof's iat \(issuedAt) is more than \(window) s from the server's time \(now)")
        }
        if let accessToken {
            guard let accessTokenHash else {
                throw .invalidDPoPProof("the DPoP proof has no ath claim for the access token it accompanies")
            }
            guard accessTokenHash == DPoPProof.accessTokenHash(for: accessToken) else {
                throw .invalidDPoPProof("the DPoP proof's ath is not the hash of this access token")
            }
        }
    }

    /// The form in which `htu` values compare (RFC 9449 §4.3, RFC 3986 §6.2.2–6.2.3): lowercase
    /// scheme and host, no default port, no query or fragment, `/` for an empty path; `nil` for
    /// a value that is not an absolute http(s) URL.
    public static func normalizedURL(_ url: String) -> String? {
        guard let parts = URLParts(URLParts.stripQueryAndFragment(url)), let host = parts.host, !host.isEmpty
        else { return nil }
        let defaultPort: Int
        switch parts.scheme {
        case "https": defaultPort = 443
        case "http": defaultPort = 80
        default: return nil
        }
        let port = parts.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(parts.scheme)://\(host)\(port)\(parts.path.isEmpty ? "/" : parts.path)"
    }
}
