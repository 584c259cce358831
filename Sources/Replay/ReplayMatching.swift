import HTTPCore
import JSON
import Recordings
import ScenarioReports

/// How a replayed request is compared with recorded ones, the way VCR, Betamax and OkReplay
/// match cassette entries, adapted to OAuth: every token call is a `POST` to one URL, so
/// requests are told apart by their parameters too.
///
/// A request matches on method, origin, path, and its query, form or top-level JSON
/// parameters in any order. Parameters whose values the app draws at random (`volatile`) count
/// by presence only; the rest must be equal once the replayed app's random values are put back
/// to the recorded ones (`ReplayCorrelation`). Headers never decide a match.
public struct ReplayMatching: Sendable {
    /// Parameters whose values change on every run: the app's random `state`, `nonce`, PKCE
    /// values and DPoP proofs, assertion and token identifiers, timestamps.
    public static let volatile: Set<String> = [
        "state", "nonce", "code_challenge", "code_verifier", "jti", "dpop", "iat", "exp", "timestamp",
        "client_assertion", "_",
    ]

    /// Parameters that carry a token or a proof of one: a recorded answer given to a request
    /// whose value differs (after correlation) is flagged (RFC 6749 §4.1.3, §6; RFC 7636 §4.5;
    /// RFC 7009 §2.1; RFC 8693 §2.1; RP-Initiated Logout §2).
    public static let tokenBearing: [String] = [
        "refresh_token", "code", "code_verifier", "token", "subject_token", "id_token_hint",
    ]

    /// Parameters compared by presence only.
    public var ignoredValues: Set<String>

    public init(ignoredValues: Set<String> = ReplayMatching.volatile) {
        self.ignoredValues = ignoredValues
    }

    /// What a request is matched on.
    ///
    /// Credentials the app supplies itself (a password, `client_secret`) are kept apart: a
    /// recorded one that redaction replaced by a placeholder (`<REDACTED:password:1>`) matches
    /// any value, as Betamax's placeholders do, since the capture no longer says what was sent;
    /// a recorded real value must be sent again. Hashing leaves credential values out.
    public struct Key: Hashable, Sendable {
        var method: String
        var origin: String
        var path: String
        /// `name=value`, or `name=*` for volatile parameters, sorted.
        var parameters: [String]
        /// Sorted by name; usually empty (a public client sends no credential).
        var credentials: [Credential]

        struct Credential: Sendable {
            var name: String
            /// Nil for a placeholder: any value matches.
            var value: String?
        }

        public static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.method == rhs.method, lhs.origin == rhs.origin, lhs.path == rhs.path,
                lhs.parameters == rhs.parameters, lhs.credentials.count == rhs.credentials.count
            else { return false }
            for (left, right) in zip(lhs.credentials, rhs.credentials) {
                guard left.name == right.name else { return false }
                if let leftValue = left.value, let rightValue = right.value, leftValue != rightValue {
                    return false
                }
            }
            return true
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(method)
            hasher.combine(origin)
            hasher.combine(path)
            hasher.combine(parameters)
            hasher.combine(credentials.count)
            for credential in credentials { hasher.combine(credential.name) }
        }
    }

    /// The parameters of a request: its query, then its form or top-level JSON members.
    static func parameters(url: String, body: [UInt8]) -> FormParameters {
        var parameters = (try? URLParts.queryParameters(of: url)) ?? FormParameters()
        guard !body.isEmpty else { return parameters }
        if body.first == UInt8(ascii: "{") {
            if let object = try? JSONValue.parseObject(body) {
                for (name, value) in object.sorted(by: { $0.key < $1.key }) {
                    parameters.append(name, value.stringValue ?? value.serializedString())
                }
            }
        } else if body.contains(UInt8(ascii: "=")), let text = String(validating: body, as: UTF8.self),
            let pairs = try? FormURLEncoding.decode(text)
        {
            for pair in pairs { parameters.append(pair.name, pair.value) }
        }
        return parameters
    }

    /// The key of a request whose parameter values have been put back to the recording's.
    func key(method: String, url: String, parameters: FormParameters) -> Key {
        var names: [String] = []
        var credentials: [Key.Credential] = []
        for pair in parameters {
            let lowercased = pair.name.lowercased()
            if ignoredValues.contains(lowercased) {
                names.append(pair.name + "=*")
            } else if Redaction.isAppCredential(lowercasedName: lowercased) {
                credentials.append(
                    Key.Credential(
                        name: pair.name, value: Redaction.isPlaceholder(pair.value) ? nil : pair.value))
            } else {
                names.append(pair.name + "=" + pair.value)
            }
        }
        if credentials.count > 1 {
            credentials.sort { ($0.name, $0.value ?? "") < ($1.name, $1.value ?? "") }
        }
        return Key(
            method: method.uppercased(), origin: URLParts.origin(of: url) ?? "", path: URLParts.path(of: url),
            parameters: names.sorted(), credentials: credentials)
    }
}
