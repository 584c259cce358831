import Cryptography
import Foundation
import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import Recordings
import Scenario
import WebAuthSession
import YAML

/// The parsers: each reads the input as its format would arrive, then uses what it parsed the
/// way the project does, so that a value the parser lets through is exercised too. Errors are
/// expected; a trap or a sanitizer report is a finding.
enum ParserTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget("jws", "JWS compact serialization, JWT claims and verification (Sources/JOSE)", run: jws),
        FuzzTarget("jwk", "one JWK, its keys and thumbprint, PEM private keys (Sources/JOSE)", run: jwk),
        FuzzTarget("jwks", "JWK Sets and key selection by header (Sources/JOSE)", run: jwks),
        FuzzTarget("dpop", "DPoP proofs: parse and check (Sources/OAuthCore DPoPProof)", run: dpop),
        FuzzTarget("form", "application/x-www-form-urlencoded bodies (Sources/HTTPCore)", run: form),
        FuzzTarget("url", "URLs, their parts and queries (Sources/HTTPCore URLParts)", run: url),
        FuzzTarget("json", "JSON text (Sources/JSON)", run: json),
        FuzzTarget("yaml", "YAML streams (Sources/YAML)", run: yaml),
        FuzzTarget("scenario", "scenario files (Sources/Scenario ScenarioLoader.parse)", run: scenario),
        FuzzTarget("tenant", "tenant files (Sources/Issuer TenantLoader)", run: tenant),
        FuzzTarget("har", "HAR captures (Sources/Recordings HARImporter)", run: har),
        FuzzTarget("html", "HTML pages (Sources/WebAuthSession HTMLDocument)", run: html),
    ]

    /// The input as text; invalid UTF-8 is repaired, as `String(decoding:)` does for the
    /// project's own readers.
    static func text(_ input: [UInt8]) -> String { String(decoding: input, as: UTF8.self) }

    /// A fixed P-256 key: verification attempts need a key, not a fresh one per input.
    static let verificationJWK: JWK = {
        do {
            let key = try P256PrivateKey(rawScalar: [UInt8](repeating: 0x2A, count: 32))
            return JWK(key.publicKey, keyID: "fuzz-es256")
        } catch {
            fatalError("cannot make the fuzz key: \(error)")
        }
    }()

    static func jws(_ input: [UInt8]) {
        let token = text(input)
        guard let jws = try? JWS.parse(token) else { return }
        _ = try? jws.header.validated()
        _ = try? jws.payloadObject()
        _ = try? JWT.decodeUnverified(token)
        _ = try? jws.verify(with: verificationJWK)
        let keys = JWKCollection(keys: [verificationJWK])
        _ = try? JWT.verify(
            token, keys: keys,
            validation: JWTValidation(
                now: 1_700_000_000, leeway: 60, issuer: "https://issuer.test", audience: "com.example.app",
                nonce: "n-0S6_WzA2Mj", requireIssuedAt: true, requireSubject: true))
    }

    static func jwk(_ input: [UInt8]) {
        if let jwk = try? JWK.parse(input) {
            _ = try? jwk.verificationKey()
            _ = try? jwk.signingKey()
            _ = try? jwk.thumbprintInput()
            _ = try? jwk.thumbprint()
            if let signer = try? JWSSigner(jwk: jwk) { _ = signer.publicJWK }
        }
        // The CLI reads private keys as a JWK or PEM text.
        _ = try? JWK.privateKey(text: text(input))
    }

    static func jwks(_ input: [UInt8]) {
        guard let set = try? JWKSet.parse(input) else { return }
        let collection = JWKCollection(set)
        for algorithm in JWSAlgorithm.allCases {
            _ = try? collection.key(for: JWSHeader(algorithm: algorithm), algorithm: algorithm)
            _ = try? collection.key(for: JWSHeader(algorithm: algorithm, keyID: "fuzz"), algorithm: algorithm)
            for key in set.keys.prefix(4) {
                _ = try? collection.key(
                    for: JWSHeader(algorithm: algorithm, keyID: key.keyID), algorithm: algorithm)
            }
        }
        for key in set.keys.prefix(4) { _ = try? key.thumbprint() }
    }

    static func dpop(_ input: [UInt8]) {
        let compact = text(input)
        _ = DPoPProof.normalizedURL(compact)
        guard let proof = try? DPoPProof.parse(compact) else { return }
        let urls = ["https://issuer.test/oauth/token", "http://127.0.0.1:8080/oauth/token"]
        _ = try? proof.check(method: "POST", urls: urls, now: proof.issuedAt, window: 60, accessToken: nil)
        _ = try? proof.check(
            method: proof.method, urls: [proof.url], now: 1_700_000_000, window: nil, accessToken: "token")
        _ = try? proof.key.thumbprint()
    }

    static func form(_ input: [UInt8]) {
        let body = text(input)
        _ = try? FormURLEncoding.unescape(Substring(body))
        _ = FormURLEncoding.escape(body)
        guard let parameters = try? FormURLEncoding.decode(body) else { return }
        // What the project writes it must read back as it was.
        let encoded = FormURLEncoding.encode(parameters)
        guard let again = try? FormURLEncoding.decode(encoded), again == parameters else {
            fatalError("form round trip changed \(parameters) into \(encoded)")
        }
        let request = HTTPRequest(
            method: .post, url: "https://issuer.test/oauth/token",
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: input)
        _ = try? request.formParameters()
        for pair in parameters.prefix(8) { _ = parameters.values(for: pair.name) }
        _ = FormURLEncoding.appendingQuery(parameters, to: "https://issuer.test/authorize?x=1#f")
        _ = BasicCredentials.read(body)
        _ = HTTPDate.parse(body)
        _ = MediaType.essence(body)
    }

    static func url(_ input: [UInt8]) {
        let url = text(input)
        if let parts = URLParts(url) { _ = parts.host }
        _ = URLParts.path(of: url)
        _ = URLParts.query(of: url)
        _ = try? URLParts.queryParameters(of: url)
        _ = URLParts.origin(of: url)
        _ = URLParts.authorityRange(of: url)
        _ = URLParts.stripQueryAndFragment(url)
        _ = DPoPProof.normalizedURL(url)
        let request = HTTPRequest(url: url)
        _ = request.path
        _ = try? request.queryParameters()
        _ = FormURLEncoding.appendingQuery(["state": "s"], to: url)
    }

    static func json(_ input: [UInt8]) {
        guard let value = try? JSONValue.parse(input) else { return }
        // What the project writes it must be able to read.
        let written = value.serialized()
        guard (try? JSONValue.parse(written)) != nil else {
            fatalError("the serialization of a parsed value does not parse: \(value.serializedString())")
        }
        _ = value.prettyPrinted()
    }

    static func yaml(_ input: [UInt8]) {
        _ = try? YAMLParser.parseAll(input, fileName: "fuzz.yaml")
    }

    static func scenario(_ input: [UInt8]) {
        // A path with no directory on disk: `runFlow` includes relative to it read nothing.
        guard
            let scenario = try? ScenarioLoader.parse(
                input, file: "/nonexistent/fuzz/scenario.yaml", tenantCheck: TenantLoader.check)
        else { return }
        _ = ScenarioEncoder.document(scenario).serialized()
    }

    static func tenant(_ input: [UInt8]) {
        _ = try? TenantLoader.load(bytes: input, fileName: "fuzz-tenant.yaml")
    }

    static func har(_ input: [UInt8]) {
        _ = try? HARImporter.parse(input, file: "fuzz.har")
    }

    static func html(_ input: [UInt8]) {
        // The first line, when it looks like one, is the Content-Type the page came with.
        var bytes = input
        var contentType: String?
        if let newline = input.firstIndex(of: UInt8(ascii: "\n")), input.starts(with: Array("text/".utf8)) {
            contentType = text(Array(input[..<newline]))
            bytes = Array(input[(newline + 1)...])
        }
        guard
            let page = try? HTMLDocument(
                bytes: bytes, contentType: contentType, url: "https://issuer.test/u/login?state=s")
        else { return }
        for form in page.forms {
            _ = form.fields
            _ = form.submitButtons
        }
    }
}
