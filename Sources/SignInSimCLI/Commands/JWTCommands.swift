import Clocks
import Cryptography
import Foundation
import HTTPClient
import HTTPCore
import JOSE
import JSON

extension SignInSimCLI {
    static let jwtCommand = CommandSpec(
        name: "jwt", abstract: "Sign, decode and verify JSON Web Tokens (RFC 7519).",
        subcommands: [jwtSignCommand, jwtDecodeCommand, jwtVerifyCommand])

    static let jwtSignCommand = CommandSpec(
        name: "sign", abstract: "Sign a JWT with a private key and print it.",
        discussion: """
            The key file holds a private JWK or a PEM private key (PKCS#8, SEC1 or PKCS#1).
            The algorithm is the JWK's alg, or the header's alg, or ES256 for P-256 keys and
            RS256 for RSA keys. Claims are signed exactly as given: nothing is added.
            """,
        options: [JWTSignOptions.key, JWTSignOptions.claims, JWTSignOptions.header],
        run: { arguments, context in
            let claims = try jsonObjectOption(arguments.value(JWTSignOptions.claims), name: "claims") ?? [:]
            var header = try jsonObjectOption(arguments.value(JWTSignOptions.header), name: "header") ?? [:]
            let keyBytes = try context.readFile(try arguments.requiredValue(JWTSignOptions.key))
            var requested: JWSAlgorithm?
            if let alg = header.removeValue(forKey: "alg") {
                guard let name = alg.stringValue else {
                    throw UsageError("The header's alg must be a string")
                }
                do {
                    requested = try JWSAlgorithm.resolve(name)
                } catch let error as JOSEError {
                    throw CommandFailure(error.message)
                }
            }
            let signer = try makeSigner(
                keyBytes, path: try arguments.requiredValue(JWTSignOptions.key), algorithm: requested)
            if header["typ"] == nil { header["typ"] = "JWT" }
            do {
                let token = try JWS.sign(
                    payload: JSONValue.object(claims).serialized(), signer: signer, extraHeader: header)
                context.writeOut(token + "\n")
            } catch let error as JOSEError {
                throw CommandFailure("signing failed: \(error.message)")
            }
            return .success
        })

    /// The options of `jwt sign`.
    enum JWTSignOptions {
        /// `--key <file>`: the signing key.
        static let key = OptionSpec.option(
            "key", value: "file", help: "A private JWK or PEM file.", required: true)
        /// `--claims <json>`: the payload.
        static let claims = OptionSpec.option(
            "claims", value: "json", help: "The claims, a JSON object (default: {}).")
        /// `--header <json>`: header members besides alg and typ.
        static let header = OptionSpec.option(
            "header", value: "json", help: "Extra JOSE header members, a JSON object.")
    }

    /// The options of `jwt verify`.
    enum JWTVerifyOptions {
        /// `--jwks <file-or-url>`: the keys the signature may be made with.
        static let jwks = OptionSpec.option(
            "jwks", value: "file-or-url",
            help: "A JWK Set or a single JWK of public keys: a file, or an http(s) URL.",
            required: true)
        /// `--iss <issuer>`.
        static let issuer = OptionSpec.option(
            "iss", value: "issuer", help: "The expected issuer (trailing slashes ignored).")
        /// `--aud <audience>`.
        static let audience = OptionSpec.option(
            "aud", value: "audience", help: "An audience the token must be for.")
        /// `--nonce <nonce>`.
        static let nonce = OptionSpec.option("nonce", value: "nonce", help: "The expected nonce.")
        /// `--leeway <seconds>`.
        static let leeway = OptionSpec.option(
            "leeway", value: "seconds", help: "Clock skew allowed on exp, nbf and iat (default: 0).")
        /// `--now <epoch>`.
        static let now = OptionSpec.option(
            "now", value: "epoch", help: "Judge the token at this time (default: the system clock).")
    }

    static let jwtDecodeCommand = CommandSpec(
        name: "decode", abstract: "Print a JWT's header and claims without verifying it.",
        arguments: [.argument("token", help: "The compact JWT, or - to read it from standard input.")],
        run: { arguments, context in
            let token = try readToken(try arguments.requiredPositional(0, name: "token"), context: context)
            do {
                let decoded = try JWT.decodeUnverified(token)
                context.printJSON(["header": decoded.header, "claims": decoded.claims])
            } catch let error as JOSEError {
                throw CommandFailure("cannot decode the token: \(error.message)")
            }
            return .success
        })

    static let jwtVerifyCommand = CommandSpec(
        name: "verify", abstract: "Verify a JWT's signature and claims.",
        discussion: """
            Exits 0 and prints the claims when the token is valid; exits 1 with the precise
            reason when it is not. exp is always checked. A key set holding a private or secret
            key (d, p, q, dp, dq, qi, oth or k) is refused: verification needs public keys only.
            """,
        options: [
            JWTVerifyOptions.jwks, JWTVerifyOptions.issuer, JWTVerifyOptions.audience, JWTVerifyOptions.nonce,
            JWTVerifyOptions.leeway, JWTVerifyOptions.now,
        ],
        arguments: [.argument("token", help: "The compact JWT, or - to read it from standard input.")],
        run: { arguments, context in
            let token = try readToken(try arguments.requiredPositional(0, name: "token"), context: context)
            let leeway = try arguments.integer(JWTVerifyOptions.leeway) ?? 0
            guard leeway >= 0 else { throw UsageError("--leeway must not be negative") }
            // Bounded so that `now ± leeway` stays far inside Int64 (years 0001 to 9999).
            guard leeway <= WallClockRange.longestMove else {
                throw UsageError(
                    "The value '\(leeway)' is invalid for '--leeway <seconds>': expected 0 to "
                        + "\(WallClockRange.longestMove)")
            }
            let now = try arguments.integer(JWTVerifyOptions.now) ?? context.now()
            guard WallClockRange.times.contains(now) else {
                throw UsageError(
                    "The value '\(now)' is invalid for '--now <epoch>': expected \(WallClockRange.earliest) "
                        + "to \(WallClockRange.latest) (years 0001 to 9999)")
            }
            let keys = try await loadKeys(
                try arguments.requiredValue(JWTVerifyOptions.jwks), context: context)
            let validation = JWTValidation(
                now: now, leeway: leeway, issuer: arguments.value(JWTVerifyOptions.issuer),
                audience: arguments.value(JWTVerifyOptions.audience),
                nonce: arguments.value(JWTVerifyOptions.nonce))
            do {
                let verified = try JWT.verify(token, keys: keys, validation: validation)
                context.printJSON(verified.claims.json)
                return .success
            } catch let error as JOSEError {
                throw CommandFailure("invalid token: \(error.message) [\(error.code.rawValue)]")
            }
        })

    // MARK: - Helpers

    static func readToken(_ argument: String, context: CLIContext) throws -> String {
        let text: String
        if argument == "-" {
            text = String(decoding: try context.readInput(), as: UTF8.self)
        } else {
            text = argument
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func jsonObjectOption(_ text: String?, name: String) throws -> [String: JSONValue]? {
        guard let text else { return nil }
        do {
            return try JSONValue.parseObject(Array(text.utf8))
        } catch {
            throw UsageError("The value of '--\(name) <json>' is not a JSON object: \(error.message)")
        }
    }

    static func makeSigner(_ bytes: [UInt8], path: String, algorithm: JWSAlgorithm?) throws -> JWSSigner {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            if text.contains("-----BEGIN") {
                let key: PrivateKey
                do {
                    key = try PrivateKey(pem: text)
                } catch {
                    throw CommandFailure("\(path): not a usable PEM private key: \(error.message)")
                }
                let natural: JWSAlgorithm = if case .p256 = key { .es256 } else { .rs256 }
                return try JWSSigner(key: key, algorithm: algorithm ?? natural)
            }
            let jwk = try readJWK(bytes, source: path)
            guard jwk.isPrivate else {
                throw CommandFailure("\(path): the JWK is public; signing needs a private key")
            }
            return try JWSSigner(jwk: jwk, algorithm: algorithm)
        } catch let error as JOSEError {
            throw CommandFailure("\(path): \(error.message)")
        }
    }

    /// Loads verification keys from a file or URL holding a JWK Set or a single JWK.
    static func loadKeys(_ source: String, context: CLIContext) async throws -> JWKCollection {
        let bytes: [UInt8]
        if source.hasPrefix("http://") || source.hasPrefix("https://") {
            let transport = CurlTransport(cookieJar: nil)
            let response: HTTPResponse
            do {
                response = try await transport.send(
                    HTTPRequest(url: source, headers: ["Accept": "application/json"]))
            } catch {
                throw CommandFailure("cannot fetch \(source): \(error.message)")
            }
            guard response.status == 200 else {
                throw CommandFailure("cannot fetch \(source): HTTP \(response.status)")
            }
            bytes = response.body
        } else {
            bytes = try context.readFile(source)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, maximumSize: JWKSet.maximumSize)
        } catch {
            throw CommandFailure("\(source): not JSON: \(error.message)")
        }
        // A private or secret key has no business in a verification key set: refused, not
        // silently reduced to its public part, so that a leaked key file is noticed.
        if let problem = JWKSet.privateKeyProblem(in: json) {
            throw CommandFailure("\(source): \(problem)")
        }
        do {
            let set = json["keys"] != nil ? try JWKSet(json: json) : JWKSet(keys: [try JWK(json: json)])
            let collection = JWKCollection(set)
            guard !collection.isEmpty else {
                let reasons = collection.rejectedKeys.map(\.reason).joined(separator: "; ")
                throw CommandFailure("\(source): no usable key\(reasons.isEmpty ? "" : " (\(reasons))")")
            }
            return collection
        } catch let error as JOSEError {
            throw CommandFailure("\(source): \(error.message)")
        }
    }
}
