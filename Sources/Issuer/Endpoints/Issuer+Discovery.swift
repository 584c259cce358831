import HTTPCore
import JOSE
import JSON
import OAuthCore

extension Issuer {
    /// OpenID Connect Discovery 1.0 §3, with the RFC 8414 / 9207 / 9449 / 8693 / 9126 additions.
    func discoveryDocument(_ request: HTTPRequest) -> HTTPResponse {
        let mismatch = state.withLock { $0.faults.take(.discoveryIssuerMismatch) }
        let algorithms = state.withLock { $0.keys.active.algorithm.rawValue }
        var members: [String: JSONValue] = [
            "issuer": .string(mismatch ? "https://impostor.example" : identifier),
            "authorization_endpoint": .string(url(Path.authorize)),
            "token_endpoint": .string(url(Path.token)),
            "userinfo_endpoint": .string(url(Path.userInfo)),
            "jwks_uri": .string(url(Path.jwks)),
            "revocation_endpoint": .string(url(Path.revoke)),
            "end_session_endpoint": .string(url(Path.logout)),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": [
                .string(GrantType.authorizationCode), .string(GrantType.refreshToken),
                .string(GrantType.tokenExchange),
            ],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [.string(algorithms)],
            "scopes_supported": .array(
                (tenant.scopes + tenant.audiences.flatMap(\.scopes)).map(JSONValue.string)),
            "claims_supported": [
                "sub", "iss", "aud", "azp", "exp", "iat", "auth_time", "nonce", "at_hash", "sid", "name",
                "given_name",
                "family_name", "email", "email_verified",
            ],
            "prompt_values_supported": ["none", "login", "consent"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": clientAuthenticationMethods,
            "token_endpoint_auth_signing_alg_values_supported": clientAssertionAlgorithms,
            "revocation_endpoint_auth_methods_supported": clientAuthenticationMethods,
            "revocation_endpoint_auth_signing_alg_values_supported": clientAssertionAlgorithms,
            "dpop_signing_alg_values_supported": .array(JWSAlgorithm.allCases.map { .string($0.rawValue) }),
            "authorization_response_iss_parameter_supported": true,
            "request_parameter_supported": false,
            "claims_parameter_supported": false,
        ]
        // RFC 9126 §5.
        let pushedRequests = tenant.pushedAuthorizationRequests
        if pushedRequests.servesPushedRequests {
            members["pushed_authorization_request_endpoint"] = .string(url(Path.pushedAuthorization))
            members["require_pushed_authorization_requests"] = .bool(pushedRequests == .required)
        }
        Issuer.applyDiscoveryDeviations(tenant.deviations, to: &members)
        return .json(.object(members), headers: ["Cache-Control": "public, max-age=60"])
    }

    /// The discovery document as a tenant that deviates serves it: each discovery deviation
    /// leaves out, or adds to, one member, and the endpoints stay as they are.
    static func applyDiscoveryDeviations(
        _ deviations: Set<IssuerDeviation>, to members: inout [String: JSONValue]
    ) {
        // OpenID Connect Discovery 1.0 §3: REQUIRED.
        if deviations.contains(.discoveryOmitsSubjectTypes) { members["subject_types_supported"] = nil }
        // Advertised only: the authorization endpoint still takes S256 alone (RFC 9700 §2.1.1).
        if deviations.contains(.discoveryAdvertisesPlain) {
            members["code_challenge_methods_supported"] = ["S256", "plain"]
        }
        // RFC 8414 §2: without it, a client cannot tell that PKCE is supported.
        if deviations.contains(.discoveryOmitsPKCEMethods) {
            members["code_challenge_methods_supported"] = nil
        }
        // RFC 9207 §3: absent means false; the responses carry no `iss` either.
        if deviations.contains(.noIssParameter) {
            members["authorization_response_iss_parameter_supported"] = nil
        }
        // RP-Initiated Logout 1.0 §2.1; the endpoint is still served.
        if deviations.contains(.noEndSessionEndpoint) { members["end_session_endpoint"] = nil }
        // RFC 8414 §2; the endpoint is still served.
        if deviations.contains(.noRevocationEndpoint) { members["revocation_endpoint"] = nil }
    }

    /// Every client authentication method the token and revocation endpoints take; which one a
    /// client may use is in its registration (OpenID Connect Discovery §3).
    private var clientAuthenticationMethods: JSONValue {
        .array(
            [TokenEndpointAuthMethod.publicClient, .clientSecretBasic, .clientSecretPost, .privateKeyJWT].map
            {
                .string($0.rawValue)
            })
    }

    /// The algorithms a `private_key_jwt` assertion may be signed with (Discovery §3 requires
    /// the list when `private_key_jwt` is offered).
    private var clientAssertionAlgorithms: JSONValue {
        .array(JWSAlgorithm.allCases.map { .string($0.rawValue) })
    }

    /// The JWK Set at `jwks_uri` (RFC 7517 §5).
    func keySet() -> HTTPResponse {
        let publishesPrivateMembers = tenant.deviates(.jwksPrivateMembers)
        let set = state.withLock { state in
            // `jwks-private-members`: the issuer's own keys with their private members (RFC
            // 7518 §6.2.2.1, §6.3.2), as a misconfigured issuer that exports its key pair
            // publishes them.
            var set = publishesPrivateMembers ? state.keys.privateKeySet : state.keys.publicKeySet
            switch state.jwksPresentation {
            case .normal: break
            case .activeKeyOnly:
                // rp-id_token-kid-absent-single-jwks: a kid-less token and exactly one key.
                set.keys = Array(set.keys.prefix(1))
            case .withDecoy(let decoy):
                // rp-id_token-kid-absent-multiple-jwks: a kid-less token and two keys that could
                // have signed it.
                set.keys = [decoy] + set.keys.prefix(1)
            }
            return set
        }
        return .json(set.json, headers: ["Cache-Control": "public, max-age=60"])
    }
}
