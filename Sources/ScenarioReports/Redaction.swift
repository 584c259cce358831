/// Which secrets a HAR capture hides, and how: the rules `signinsim run --har-dir` writes with
/// and `signinsim replay` / `import-har --redact` apply to a capture from the field.
///
/// A HAR of a sign-in holds everything a thief needs, yet it is what people attach to bug
/// reports and CI keeps as an artefact. Secrets are therefore replaced by default, with
/// Betamax-style placeholders (`<REDACTED:password:1>`) rather than removed: the document stays
/// valid HAR, and a reader still sees that a password was sent, and where. Placeholders are
/// numbered per distinct secret in one capture, so that equality survives: the two requests of
/// a refresh race present one `<REDACTED:refresh_token:1>`, and a replayed app that is handed
/// that placeholder as its (opaque) refresh token presents it back and matches the recording.
///
/// Short-lived, single-use or public values (authorization codes, ID tokens, DPoP proofs) are
/// kept: they are what a failing sign-in is debugged from. Refresh tokens and PKCE verifiers
/// are kept unless asked, for the same reason; turn them on for captures that leave the team.
public struct Redaction: Hashable, Sendable {
    /// Form, JSON and query parameters whose name ends in `password` (`password`,
    /// `new_password`).
    public var passwords: Bool
    /// `client_secret` (RFC 6749 §2.3.1) and `client_assertion` (RFC 7523 §2.2): a signed
    /// assertion is a credential until it expires.
    public var clientSecrets: Bool
    /// The credentials of `Authorization: Basic` (RFC 7617), client or user.
    public var basicCredentials: Bool
    /// The private members of JWKs in JSON bodies (RFC 7518 §6.2.2, §6.3.2: `d`, `p`, `q`, `dp`,
    /// `dq`, `qi`, `oth`; `k` of a symmetric key, §6.4.1), such as a DPoP key pair.
    public var privateKeys: Bool
    /// `code_verifier` (RFC 7636 §4.5). Off by default: it is worthless once its code is spent.
    public var codeVerifiers: Bool
    /// `refresh_token` in requests and token responses (RFC 6749 §6). Off by default.
    public var refreshTokens: Bool
    /// Cookie values, in `Cookie` and `Set-Cookie` headers (RFC 6265 §4): an issuer's session
    /// cookie signs its holder in as the user until it expires.
    public var cookies: Bool

    public init(
        passwords: Bool = true, clientSecrets: Bool = true, basicCredentials: Bool = true,
        privateKeys: Bool = true, codeVerifiers: Bool = false, refreshTokens: Bool = false,
        cookies: Bool = true
    ) {
        self.passwords = passwords
        self.clientSecrets = clientSecrets
        self.basicCredentials = basicCredentials
        self.privateKeys = privateKeys
        self.codeVerifiers = codeVerifiers
        self.refreshTokens = refreshTokens
        self.cookies = cookies
    }

    /// Passwords, client secrets and assertions, Basic credentials, private keys and cookies.
    public static let `default` = Redaction()

    /// Nothing hidden: for captures that never leave the machine.
    public static let disabled = Redaction(
        passwords: false, clientSecrets: false, basicCredentials: false, privateKeys: false, cookies: false)

    /// Every secret this type knows, refresh tokens and code verifiers included.
    public static let everything = Redaction(codeVerifiers: true, refreshTokens: true)

    /// Whether anything at all is hidden.
    public var hidesAnything: Bool { self != .disabled }

    /// Whether the value of a form, JSON or query parameter with this name is hidden.
    public func hidesParameter(named name: String) -> Bool {
        let name = name.lowercased()
        if passwords, name.hasSuffix("password") { return true }
        switch name {
        case "client_secret", "client_assertion": return clientSecrets
        case "code_verifier": return codeVerifiers
        case "refresh_token": return refreshTokens
        default: return false
        }
    }

    /// Whether a member of a JWK (a JSON object with `kty`) is private key material.
    public func hidesKeyMember(named name: String, keyType: String) -> Bool {
        guard privateKeys else { return false }
        switch name {
        case "d", "p", "q", "dp", "dq", "qi", "oth": return true
        case "k": return keyType == "oct"
        default: return false
        }
    }
}

// MARK: - Placeholders

extension Redaction {
    /// The label of the placeholder that hides `Authorization: Basic` credentials.
    public static let basicCredentialsLabel = "basic-credentials"
    /// The label of the placeholders that hide cookie values.
    public static let cookieLabel = "cookie"

    /// What replaces the `number`th distinct secret named `name` in a capture:
    /// `<REDACTED:name:number>`, as Betamax's placeholders name what was there.
    public static func placeholder(for name: String, number: Int) -> String {
        "<REDACTED:\(name):\(number)>"
    }

    /// Whether a value is a placeholder (`<REDACTED:name:1>`, or the unnumbered
    /// `<REDACTED:name>` of older captures). Byte comparisons only: replay matching asks it of
    /// every credential parameter of every request.
    public static func isPlaceholder(_ value: String) -> Bool {
        let utf8 = value.utf8
        return utf8.count > placeholderPrefix.count + 1 && utf8.last == UInt8(ascii: ">")
            && utf8.starts(with: placeholderPrefix)
    }

    /// The name and number of a placeholder; the number is nil for an unnumbered one.
    public static func parsePlaceholder(_ value: String) -> (name: String, number: Int?)? {
        guard isPlaceholder(value) else { return nil }
        let inner = value.dropFirst(placeholderPrefix.count).dropLast()
        if let colon = inner.lastIndex(of: ":"), let number = Int(inner[inner.index(after: colon)...]),
            number > 0
        {
            return (String(inner[..<colon]), number)
        }
        return (String(inner), nil)
    }

    /// Whether a parameter (its name in lower case) carries a credential the app supplies
    /// itself rather than one the issuer handed it: a password, `client_secret` (RFC 6749
    /// §2.3.1), `client_assertion` (RFC 7523 §2.2). A replayed app sends its own value, which
    /// a placeholder cannot be compared with, so replay matching counts such a parameter's
    /// presence only when the recorded value is a placeholder.
    public static func isAppCredential(lowercasedName name: String) -> Bool {
        let utf8 = name.utf8
        return utf8.elementsEqual("client_secret".utf8) || utf8.elementsEqual("client_assertion".utf8)
            || (utf8.count >= 8 && utf8.suffix(8).elementsEqual("password".utf8))
    }

    private static let placeholderPrefix = Array("<REDACTED:".utf8)
}

// MARK: - The command-line vocabulary

extension Redaction {
    /// The kinds of secret, as `--har-redact` (run) and `--redact` (replay, import-har) name
    /// them.
    public enum Kind: String, CaseIterable, Sendable {
        case passwords
        case clientSecrets = "client-secrets"
        case basicCredentials = "basic-credentials"
        case privateKeys = "private-keys"
        case codeVerifiers = "code-verifiers"
        case refreshTokens = "refresh-tokens"
        case cookies
    }

    /// Whether secrets of this kind are hidden.
    public subscript(kind: Kind) -> Bool {
        get {
            switch kind {
            case .passwords: passwords
            case .clientSecrets: clientSecrets
            case .basicCredentials: basicCredentials
            case .privateKeys: privateKeys
            case .codeVerifiers: codeVerifiers
            case .refreshTokens: refreshTokens
            case .cookies: cookies
            }
        }
        set {
            switch kind {
            case .passwords: passwords = newValue
            case .clientSecrets: clientSecrets = newValue
            case .basicCredentials: basicCredentials = newValue
            case .privateKeys: privateKeys = newValue
            case .codeVerifiers: codeVerifiers = newValue
            case .refreshTokens: refreshTokens = newValue
            case .cookies: cookies = newValue
            }
        }
    }

    /// The kinds hidden by default, and the others, by name (for help texts).
    public static var defaultKindNames: [String] {
        Kind.allCases.filter { Redaction.default[$0] }.map(\.rawValue)
    }
    public static var optionalKindNames: [String] {
        Kind.allCases.filter { !Redaction.default[$0] }.map(\.rawValue)
    }

    /// Every word a redaction list accepts: the kinds, then `default`, `all` and `none`.
    public static let listWords = Kind.allCases.map(\.rawValue) + ["default", "all", "none"]

    /// A name in a redaction list that is neither a kind nor a preset.
    public struct UnknownKind: Error, Hashable, Sendable, CustomStringConvertible {
        public let name: String

        public var description: String {
            "unknown kind of secret \"\(name)\" (expected \(Redaction.listWords.joined(separator: ", ")))"
        }
    }

    /// The redaction a comma-separated list asks for, read left to right from `.default`, so
    /// that naming one more kind never reveals the others: a kind adds itself, `default` adds
    /// the default kinds, `all` every kind, and `none` clears what came before
    /// (`none,refresh-tokens` hides refresh tokens only).
    public init(list items: some Sequence<String>) throws(UnknownKind) {
        self = .default
        for item in items {
            for word in item.split(separator: ",") {
                let word = word.trimmingSpaces().lowercased()
                if word.isEmpty { continue }
                switch word {
                case "default":
                    for kind in Kind.allCases where Redaction.default[kind] { self[kind] = true }
                case "all": self = .everything
                case "none": self = .disabled
                default:
                    guard let kind = Kind(rawValue: word) else { throw UnknownKind(name: String(word)) }
                    self[kind] = true
                }
            }
        }
    }
}
