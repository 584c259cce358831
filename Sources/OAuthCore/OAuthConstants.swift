/// Grant types (RFC 6749 §4, RFC 8693 §2.1).
public enum GrantType {
    public static let authorizationCode = "authorization_code"
    public static let refreshToken = "refresh_token"
    public static let clientCredentials = "client_credentials"
    public static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
}

/// Token type identifiers (RFC 8693 §3) and the native social subject types of Auth0.
public enum TokenTypeIdentifier {
    public static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
    public static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
    public static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    public static let jwt = "urn:ietf:params:oauth:token-type:jwt"
    /// Auth0 native Sign in with Apple: the subject is Apple's authorization code.
    public static let appleAuthorizationCode = "http://auth0.com/oauth/token-type/apple-authz-code"
    public static let googleIDToken = "http://auth0.com/oauth/token-type/google-id-token"
    public static let facebookSessionAccessToken =
        "http://auth0.com/oauth/token-type/facebook-info-session-access-token"
}

/// Scopes with a meaning in OpenID Connect Core §5.4 and §11.
public enum StandardScope {
    public static let openID = "openid"
    public static let profile = "profile"
    public static let email = "email"
    public static let offlineAccess = "offline_access"
}

/// Space-delimited scope strings (RFC 6749 §3.3).
public enum ScopeList {
    /// Splits a scope string, dropping empty items and duplicates, keeping order.
    public static func parse(_ text: String) -> [String] {
        var seen = Set<String>()
        return text.split(separator: " ", omittingEmptySubsequences: true).map(String.init).filter {
            seen.insert($0).inserted
        }
    }

    public static func format(_ scopes: [String]) -> String { scopes.joined(separator: " ") }

    /// RFC 6749 §3.3: scope tokens are `%x21 / %x23-5B / %x5D-7E`.
    public static func isValidToken(_ token: String) -> Bool {
        !token.isEmpty
            && token.utf8.allSatisfy { byte in
                byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
            }
    }
}
