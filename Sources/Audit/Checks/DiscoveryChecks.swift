import HTTPCore
import JOSE
import JSON

extension AuditRun {
    /// The members OpenID Connect Discovery 1.0 §3 marks REQUIRED.
    static let requiredDiscoveryMembers = [
        "issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported",
        "subject_types_supported", "id_token_signing_alg_values_supported",
    ]

    /// Fetches `/.well-known/openid-configuration` (Discovery §4) and checks what it says.
    func discoveryChecks() async throws {
        let url = target.issuer.trimmingSuffix("/") + "/.well-known/openid-configuration"
        let (fetched, evidence) = try await exchanges {
            () async throws -> Result<HTTPResponse, ProbeFailure> in
            do {
                return .success(try await probe.get(url))
            } catch let failure as ProbeFailure {
                return .failure(failure)
            }
        }
        let response: HTTPResponse
        switch fetched {
        case .success(let answer): response = answer
        case .failure(let failure):
            throw AuditStop(reason: "the discovery document could not be fetched: \(failure.message)")
        }
        guard response.status == 200, let object = (try? response.jsonBody())?.objectValue else {
            let seen = "answered \(response.status)"
            findings[.discoveryRequiredMembers] = AuditFinding(
                check: .discoveryRequiredMembers, status: .fail,
                summary: "\(url) \(seen), not a JSON object (Discovery §4.2)", evidence: evidence)
            return
        }
        let view = ProviderMetadataView(object: object)
        metadata = view
        try await check(.discoveryRequiredMembers) {
            cite(evidence)
            let missing = Self.requiredDiscoveryMembers.filter { object[$0] == nil }
            return missing.isEmpty
                ? .pass("all \(Self.requiredDiscoveryMembers.count) required members are present")
                : .broken("missing: \(missing.joined(separator: ", "))")
        }
        try await check(.discoveryIssuerMatch) {
            cite(evidence)
            guard let issuer = view.string("issuer") else { return .broken("discovery has no issuer") }
            return issuer == target.issuer
                ? .pass("issuer is \(issuer), the URL the audit was given")
                : .broken("issuer is \(issuer), but the document was fetched for \(target.issuer)")
        }
        try await check(.discoveryPKCEAdvertised) {
            cite(evidence)
            guard let methods = view.strings("code_challenge_methods_supported") else {
                return .broken(
                    "code_challenge_methods_supported is absent: a client cannot learn that PKCE works")
            }
            return methods.contains("S256")
                ? .pass("code_challenge_methods_supported lists \(methods.joined(separator: ", "))")
                : .broken(
                    "code_challenge_methods_supported lists \(methods.joined(separator: ", ")) but not S256")
        }
        try await check(.discoveryPlainNotAdvertised) {
            cite(evidence)
            guard let methods = view.strings("code_challenge_methods_supported") else {
                return .skip("code_challenge_methods_supported is absent, so nothing is advertised")
            }
            return methods.contains("plain")
                ? .broken("code_challenge_methods_supported lists plain (\(methods.joined(separator: ", ")))")
                : .pass("plain is not listed (\(methods.joined(separator: ", ")))")
        }
        try await check(.discoveryIssParameter) {
            cite(evidence)
            return view.bool("authorization_response_iss_parameter_supported") == true
                ? .pass("authorization_response_iss_parameter_supported is true")
                : .broken(
                    "authorization_response_iss_parameter_supported is "
                        + (object["authorization_response_iss_parameter_supported"] == nil
                            ? "absent" : "not true")
                        + ": an app cannot tell this issuer's responses from another's (mix-up)")
        }
        try await check(.discoveryEndSession) {
            cite(evidence)
            return view.endSessionEndpoint.map { .pass("end_session_endpoint is \($0)") }
                ?? .broken(
                    "end_session_endpoint is absent: an app cannot end the browser session at sign-out")
        }
        try await check(.discoveryRevocation) {
            cite(evidence)
            return view.revocationEndpoint.map { .pass("revocation_endpoint is \($0)") }
                ?? .broken(
                    "revocation_endpoint is absent: an app cannot revoke its refresh token at sign-out")
        }
        try await check(.discoveryKeySet) {
            guard let uri = view.jwksURI else { return .skip("discovery has no jwks_uri") }
            let response = try await probe.get(uri)
            guard response.status == 200,
                case .array(let keys)? = (try? response.jsonBody())?.objectValue?["keys"]
            else { return .broken("\(uri) answered \(response.status), not a JWK set") }
            let leaks = keys.enumerated().compactMap { index, key -> String? in
                let members = JWK.privateMembers(in: key)
                guard !members.isEmpty else { return nil }
                let id = key.objectValue?["kid"]?.stringValue.map { "kid \($0)" } ?? "key \(index + 1)"
                return "\(id) has \(members.joined(separator: ", "))"
            }
            return leaks.isEmpty
                ? .pass("\(keys.count) key\(keys.count == 1 ? "" : "s"), none with private members")
                : .broken("the key set publishes private key material: \(leaks.joined(separator: "; "))")
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
