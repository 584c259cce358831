import HTTPCore
import JOSE
public import JSON
public import Scenario

/// Every JWT an exchange carries, decoded for a reader: where it was, its header and claims,
/// its times as dates, and whether a key seen in the same run verifies it.
///
/// JWTs are looked for where sign-in puts them: query and fragment parameters of the URL and
/// of a `Location` (a callback with `id_token`), `Authorization` (`Bearer`, `DPoP`) and `DPoP`
/// headers, form parameters (`id_token_hint`, `subject_token`, `client_assertion`) and the
/// string members of JSON bodies (`id_token`, `access_token`). A string is taken for a JWT
/// when it is a compact JWS (RFC 7515 §7.1) whose header is JSON with `alg`.
public struct TokenInspection: Sendable {
    /// The JWK Sets the run received (the issuer's and Apple's keys, in whatever rotation),
    /// which signatures are checked against.
    let keySets: [JWKCollection]

    /// The key sets of `exchanges`: every JSON response with a `keys` list.
    public init(keysFrom exchanges: [RecordedExchange]) {
        var sets: [JWKCollection] = []
        var seen = Set<[UInt8]>()
        for exchange in exchanges where exchange.status == 200 && !exchange.responseBody.isEmpty {
            guard seen.insert(exchange.responseBody).inserted,
                let set = try? JWKSet.parse(exchange.responseBody), !set.keys.isEmpty
            else { continue }
            sets.append(JWKCollection(set))
        }
        keySets = sets
    }

    /// The decoded JWTs of one exchange, as the report's details show them.
    public func tokens(in exchange: RecordedExchange) -> [JSONValue] {
        var found: [(place: String, token: String)] = []
        func look(_ place: String, _ value: String) {
            if Self.looksLikeJWT(value) { found.append((place, value)) }
        }
        for (name, value) in Self.parameters(ofURL: exchange.url) { look("request URL: \(name)", value) }
        for header in exchange.requestHeaders {
            switch header.name.lowercased() {
            case "authorization":
                let parts = header.value.split(separator: " ", maxSplits: 1)
                if parts.count == 2 { look("request header Authorization (\(parts[0]))", String(parts[1])) }
            case "dpop": look("request header DPoP", header.value)
            default: break
            }
        }
        if let form = try? FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self)) {
            for pair in form where !exchange.requestBody.isEmpty {
                look("request form: \(pair.name)", pair.value)
            }
        }
        if let json = try? JSONValue.parse(exchange.requestBody) {
            Self.strings(in: json, "request JSON", look)
        }
        for header in exchange.responseHeaders where header.name.lowercased() == "location" {
            for (name, value) in Self.parameters(ofURL: header.value) {
                look("response Location: \(name)", value)
            }
        }
        if let json = try? JSONValue.parse(exchange.responseBody) {
            Self.strings(in: json, "response JSON", look)
        }
        var seen = Set<String>()
        return found.filter { seen.insert($0.place + $0.token).inserted }.compactMap {
            decoded($0.token, at: $0.place)
        }
    }

    /// A compact JWS with a JSON header that names an algorithm.
    static func looksLikeJWT(_ text: String) -> Bool {
        guard text.utf8.count >= 20, text.utf8.count <= JWS.maximumLength,
            text.utf8.allSatisfy({ Self.isTokenByte($0) }),
            text.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2,
            let jws = try? JWS.parse(text)
        else { return false }
        return jws.header.members["alg"]?.stringValue != nil
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// The query and fragment parameters of a URL.
    private static func parameters(ofURL url: String) -> [(String, String)] {
        guard let parts = URLParts(url) else { return [] }
        var result: [(String, String)] = []
        for (label, component) in [("", parts.query), ("#", parts.fragment)] {
            guard let component, let form = try? FormURLEncoding.decode(component) else { continue }
            result += form.map { (label + $0.name, $0.value) }
        }
        return result
    }

    /// Every string member of a JSON document, by its key path, depth first.
    private static func strings(in value: JSONValue, _ path: String, _ visit: (String, String) -> Void) {
        switch value {
        case .string(let text): visit(path, text)
        case .object(let members):
            for key in members.keys.sorted() {
                if let member = members[key] { strings(in: member, "\(path): \(key)", visit) }
            }
        case .array(let items):
            for (index, item) in items.enumerated() { strings(in: item, "\(path)[\(index)]", visit) }
        default: break
        }
    }

    /// The claims whose values are NumericDate (RFC 7519 §2, §4.1; OpenID Connect Core §2).
    static let dateClaims = ["exp", "iat", "nbf", "auth_time"]

    private func decoded(_ token: String, at place: String) -> JSONValue? {
        guard let jws = try? JWS.parse(token) else { return nil }
        let claims: JSONValue
        if let object = try? jws.payloadObject() {
            claims = .object(object)
        } else {
            claims = .string(String(decoding: jws.payload, as: UTF8.self))
        }
        var dates: [String: JSONValue] = [:]
        for name in Self.dateClaims {
            // Years −1200 to 5100: beyond them a date says nothing a reader can use.
            if let seconds = claims[name]?.int64Value, (-100_000_000_000..<100_000_000_000).contains(seconds)
            {
                dates[name] = .string(UTCTimestamp.iso8601(millisecondsSinceEpoch: seconds * 1000))
            }
        }
        return [
            "where": .string(place), "header": .object(jws.header.members), "claims": claims,
            "dates": .object(dates), "verification": .string(verification(of: jws)),
        ]
    }

    /// Whether a key of the run (or the token's own `jwk`, for a DPoP proof, RFC 9449 §4.2)
    /// verifies the signature, in words.
    func verification(of jws: JWS) -> String {
        if let embedded = jws.header.members["jwk"], let jwk = try? JWK(json: embedded) {
            do {
                try jws.verify(with: jwk)
                return "verified with the public key in its header (jwk)"
            } catch {
                return "not verified with the public key in its header: \(error.message)"
            }
        }
        guard !keySets.isEmpty else { return "not checked: the run received no key set" }
        var reasons: [String] = []
        for keys in keySets {
            do {
                let entry = try jws.verify(with: keys)
                return "verified with a key the run received" + (entry.jwk.keyID.map { " (kid \($0))" } ?? "")
            } catch {
                reasons.append(error.message)
            }
        }
        return "not verified with any key the run received: " + (reasons.last ?? "")
    }
}
