import JOSE
import JSON
import OAuthCore

extension AuditRun {
    /// The ID token of the first code flow, read claim by claim; `auth_time` from a flow with
    /// `max_age`.
    func idTokenChecks() async throws {
        func token() async throws -> (jws: JWS, claims: [String: JSONValue], flow: CodeFlow) {
            let flow = try await mainFlow()
            guard let idToken = flow.answer.idToken else {
                throw ProbeFailure(message: "the token response had no id_token")
            }
            let jws: JWS
            do {
                jws = try JWS.parse(idToken)
            } catch {
                throw ProbeFailure(message: "the id_token is not a compact JWS: \(error.message)")
            }
            guard let claims = try? jws.payloadObject() else {
                throw ProbeFailure(message: "the id_token's payload is not a JSON object")
            }
            return (jws, claims, flow)
        }
        try await check(.idTokenSignature) {
            let (jws, _, _) = try await token()
            let name = jws.header.algorithmName ?? "(none)"
            guard let algorithm = JWSAlgorithm(rawValue: name) else {
                return .broken("alg is \(name), which no relying party may accept as a signature here")
            }
            let advertised = metadata?.strings("id_token_signing_alg_values_supported") ?? []
            guard advertised.contains(name) else {
                return .broken(
                    "alg \(name) is not in id_token_signing_alg_values_supported (\(advertised.joined(separator: ", ")))"
                )
            }
            let keys = try await keySet()
            let candidates = JWKCollection(keys).entries.filter {
                jws.header.keyID == nil
                    ? $0.jwk.keyType == algorithm.keyType : $0.jwk.keyID == jws.header.keyID
            }
            for candidate in candidates where (try? jws.verify(with: candidate.key)) != nil {
                return .pass(
                    "\(name), verified with \(candidate.jwk.keyID.map { "kid \($0)" } ?? "the set's key")")
            }
            return .broken(
                "the \(name) signature verifies with no key of the key set (\(candidates.count) tried)")
        }
        try await check(.idTokenKeyID) {
            let (jws, _, _) = try await token()
            let keys = try await keySet()
            guard let kid = jws.header.keyID else {
                let signing = keys.keys.filter { $0.use != "enc" }
                return signing.count <= 1
                    ? .pass("no kid, and the key set has one signing key (Core §10.1 allows it)")
                    : .broken("no kid, but the key set has \(signing.count) signing keys (Core §10.1)")
            }
            return keys.keys.contains { $0.keyID == kid }
                ? .pass("kid \(kid) is in the key set") : .broken("kid \(kid) is not in the key set")
        }
        try await check(.idTokenIssuer) {
            let (_, claims, _) = try await token()
            let iss = claims["iss"]?.stringValue
            return iss == target.issuer
                ? .pass("iss is \(target.issuer)")
                : .broken("iss is \(iss ?? "absent"), not \(target.issuer)")
        }
        try await check(.idTokenAudience) {
            let (_, claims, _) = try await token()
            let audiences: [String] =
                switch claims["aud"] {
                case .string(let one)?: [one]
                case .array(let many)?: many.compactMap(\.stringValue)
                default: []
                }
            let client = target.client.id
            guard audiences.contains(client) else {
                return .broken("aud (\(audiences.joined(separator: ", "))) does not contain \(client)")
            }
            let azp = claims["azp"]?.stringValue
            if let azp, azp != client { return .broken("azp is \(azp), not \(client)") }
            if audiences.count > 1, azp == nil {
                return .broken("aud has \(audiences.count) values but there is no azp (Core §3.1.3.7 step 4)")
            }
            return .pass("aud contains \(client)" + (azp.map { "; azp is \($0)" } ?? ""))
        }
        try await check(.idTokenSubject) {
            let (_, claims, _) = try await token()
            guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
                return .broken("sub is absent or empty")
            }
            return sub.utf8.count <= 255
                ? .pass("sub is present (\(sub.utf8.count) bytes)")
                : .broken("sub is longer than 255 ASCII characters")
        }
        try await check(.idTokenNonce) {
            let (_, claims, flow) = try await token()
            let nonce = claims["nonce"]?.stringValue
            return nonce == flow.authorization.nonce
                ? .pass("nonce is the one the app sent")
                : .broken(
                    nonce == nil ? "nonce is absent (the app sent one)" : "nonce is not the one the app sent")
        }
        try await check(.idTokenHashes) {
            let (jws, claims, flow) = try await token()
            guard let atHash = claims["at_hash"]?.stringValue else {
                return .pass("no at_hash, which the code flow's token endpoint may leave out (Core §3.1.3.6)")
            }
            guard let accessToken = flow.answer.accessToken, let name = jws.header.algorithmName,
                let expected = try? HashClaim.leftHalfHash(of: accessToken, algorithm: name)
            else {
                return .skip("at_hash cannot be computed for alg \(jws.header.algorithmName ?? "(none)")")
            }
            return atHash == expected
                ? .pass("at_hash matches the access token")
                : .broken("at_hash does not match the access token")
        }
        try await check(.idTokenLifetime) {
            let (_, claims, _) = try await token()
            guard let iat = claims["iat"]?.int64Value, let exp = claims["exp"]?.int64Value else {
                return .broken("iat or exp is absent or not a number")
            }
            let now = probe.now()
            if exp <= now { return .broken("exp is \(now - exp) s in the past") }
            if exp <= iat { return .broken("exp (\(exp)) is not after iat (\(iat))") }
            if abs(iat - now) > 300 { return .broken("iat is \(iat - now) s from now") }
            return .pass("issued \(now - iat) s ago, valid for \(exp - iat) s")
        }
        try await check(.idTokenAuthTime) {
            let flow = try await codeFlow(extra: [OAuthParameter.maxAge: "86400"])
            guard let idToken = flow.answer.idToken, let jws = try? JWS.parse(idToken),
                let claims = try? jws.payloadObject()
            else { return .skip("the flow with max_age got no readable id_token") }
            guard let authTime = claims["auth_time"]?.int64Value else {
                return .broken("the request had max_age=86400, but the ID token has no auth_time")
            }
            let age = probe.now() - authTime
            return age <= 86400 && age >= -300
                ? .pass("auth_time is \(age) s ago") : .broken("auth_time is \(age) s ago, outside max_age")
        }
    }
}
