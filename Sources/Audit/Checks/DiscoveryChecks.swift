import HTTPCore
import JOSE
import JSON

extension AuditRun {
    /// The members OpenID Connect Discovery 1.0 §3 marks REQUIRED.
    static let requiredDiscoveryMembers = [
        "issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported",
        "subject_types_supported", "id_token_signing_alg_values_supported",
    ]

    /// Fetches `/.well-known/openid-configuration` (Discovery §4) and checks what it says. No
    /// answer at all stops the audit: nothing else can be found.
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
            findings[.discoveryRequiredMembers] = AuditFinding(
                check: .discoveryRequiredMembers, status: .fail,
                summary: "\(url) answered \(response.status), not a JSON object (Discovery §4.2)",
                evidence: evidence)
            return
        }
        let view = ProviderMetadataView(object: object)
        metadata = view
        let fromDocument: [(AuditCheck, (ProviderMetadataView) -> Verdict)] = [
            (.discoveryRequiredMembers, Self.requiredMembers),
            (.discoveryIssuerMatch, issuerMatch),
            (.discoveryPKCEAdvertised, Self.pkceAdvertised),
            (.discoveryPlainNotAdvertised, Self.plainNotAdvertised),
            (.discoveryIssParameter, Self.issParameterAdvertised),
            (.discoveryEndSession, Self.endSessionAdvertised),
            (.discoveryRevocation, Self.revocationAdvertised),
        ]
        for (check, rule) in fromDocument {
            try await self.check(check) {
                cite(evidence)
                return rule(view)
            }
        }
        try await check(.discoveryKeySet) { try await keySetPublicOnly(view) }
    }

    private static func requiredMembers(_ view: ProviderMetadataView) -> Verdict {
        let missing = requiredDiscoveryMembers.filter { view.object[$0] == nil }
        return missing.isEmpty
            ? .pass("all \(requiredDiscoveryMembers.count) required members are present")
            : .broken("missing: \(missing.joined(separator: ", "))")
    }

    private func issuerMatch(_ view: ProviderMetadataView) -> Verdict {
        guard let issuer = view.string("issuer") else { return .broken("discovery has no issuer") }
        return issuer == target.issuer
            ? .pass("issuer is \(issuer), the URL the audit was given")
            : .broken("issuer is \(issuer), but the document was fetched for \(target.issuer)")
    }

    private static func pkceAdvertised(_ view: ProviderMetadataView) -> Verdict {
        guard let methods = view.strings("code_challenge_methods_supported") else {
            return .broken(
                "code_challenge_methods_supported is absent: a client cannot learn that PKCE works")
        }
        return methods.contains("S256")
            ? .pass("code_challenge_methods_supported lists \(methods.joined(separator: ", "))")
            : .broken(
                "code_challenge_methods_supported lists \(methods.joined(separator: ", ")) but not S256")
    }

    private static func plainNotAdvertised(_ view: ProviderMetadataView) -> Verdict {
        guard let methods = view.strings("code_challenge_methods_supported") else {
            return .skip("code_challenge_methods_supported is absent, so nothing is advertised")
        }
        return methods.contains("plain")
            ? .broken("code_challenge_methods_supported lists plain (\(methods.joined(separator: ", ")))")
            : .pass("plain is not listed (\(methods.joined(separator: ", ")))")
    }

    private static func issParameterAdvertised(_ view: ProviderMetadataView) -> Verdict {
        let name = "authorization_response_iss_parameter_supported"
        if view.bool(name) == true { return .pass("\(name) is true") }
        return .broken(
            "\(name) is \(view.object[name] == nil ? "absent" : "not true"): an app cannot tell this issuer's "
                + "responses from another's (mix-up)")
    }

    private static func endSessionAdvertised(_ view: ProviderMetadataView) -> Verdict {
        view.endSessionEndpoint.map { .pass("end_session_endpoint is \($0)") }
            ?? .broken("end_session_endpoint is absent: an app cannot end the browser session at sign-out")
    }

    private static func revocationAdvertised(_ view: ProviderMetadataView) -> Verdict {
        view.revocationEndpoint.map { .pass("revocation_endpoint is \($0)") }
            ?? .broken("revocation_endpoint is absent: an app cannot revoke its refresh token at sign-out")
    }

    /// No key of the set has private members (RFC 7518 §6.2.2, §6.3.2): read from the JSON, as
    /// a parser that keeps only public members would hide them.
    private func keySetPublicOnly(_ view: ProviderMetadataView) async throws -> Verdict {
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

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
