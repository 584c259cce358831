public import JSON

/// The parts of OpenID Provider Metadata the SDK uses (OpenID Connect Discovery 1.0 §3).
public struct ProviderMetadata: Sendable, Hashable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String
    public var userinfoEndpoint: String?
    public var endSessionEndpoint: String?
    public var revocationEndpoint: String?
    /// RFC 9207 §3: the issuer puts `iss` on every authorization response.
    public var authorizationResponseIssParameterSupported: Bool
    public var codeChallengeMethodsSupported: [String]?
    public var tokenEndpointAuthMethodsSupported: [String]?
    public var dpopSigningAlgValuesSupported: [String]?

    /// Reads a discovery document; every endpoint the SDK calls must be an absolute URL.
    public init(json: JSONValue) throws(SignInError) {
        guard case .object(let members) = json else {
            throw SignInError(.discoveryFailed, "the discovery document is \(json.typeName), not an object")
        }
        func required(_ name: String) throws(SignInError) -> String {
            guard let value = members[name]?.stringValue, !value.isEmpty else {
                throw SignInError(.discoveryFailed, "the discovery document has no \(name)")
            }
            return value
        }
        func strings(_ name: String) -> [String]? { members[name]?.arrayValue?.compactMap(\.stringValue) }
        issuer = try required("issuer")
        authorizationEndpoint = try required("authorization_endpoint")
        tokenEndpoint = try required("token_endpoint")
        jwksURI = try required("jwks_uri")
        userinfoEndpoint = members["userinfo_endpoint"]?.stringValue
        endSessionEndpoint = members["end_session_endpoint"]?.stringValue
        revocationEndpoint = members["revocation_endpoint"]?.stringValue
        authorizationResponseIssParameterSupported =
            members["authorization_response_iss_parameter_supported"]?.boolValue ?? false
        codeChallengeMethodsSupported = strings("code_challenge_methods_supported")
        tokenEndpointAuthMethodsSupported = strings("token_endpoint_auth_methods_supported")
        dpopSigningAlgValuesSupported = strings("dpop_signing_alg_values_supported")
    }

    /// The discovery URL of an issuer (OpenID Connect Discovery 1.0 §4).
    public static func discoveryURL(forIssuer issuer: String) -> String {
        var base = Substring(issuer)
        while base.last == "/" { base = base.dropLast() }
        return base + "/.well-known/openid-configuration"
    }
}
