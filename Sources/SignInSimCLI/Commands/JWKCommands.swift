import Cryptography
import JOSE
import JSON

extension SignInSimCLI {
    static let jwkCommand = CommandSpec(
        name: "jwk", abstract: "Generate and convert JSON Web Keys (RFC 7517).",
        subcommands: [jwkGenerateCommand, jwkPublicCommand, jwkThumbprintCommand])

    static let jwkGenerateCommand = CommandSpec(
        name: "generate", abstract: "Generate a private JWK and print it as JSON.",
        discussion: "The key id defaults to the key's RFC 7638 thumbprint.",
        options: [JWKGenerateOptions.alg, JWKGenerateOptions.kid],
        run: { arguments, context in
            // `required` and `allowed` are enforced by the parser before this runs.
            guard let name = arguments.value(JWKGenerateOptions.alg),
                let algorithm = JWSAlgorithm(rawValue: name)
            else {
                throw UsageError("Missing or unknown value for '--alg <alg>'")
            }
            var jwk: JWK
            do {
                switch algorithm {
                case .es256: jwk = JWK(try P256PrivateKey(), algorithm: algorithm.rawValue)
                case .rs256, .ps256: jwk = JWK(try RSAPrivateKey(bits: 2048), algorithm: algorithm.rawValue)
                }
            } catch let error as CryptoError {
                throw CommandFailure("key generation failed: \(error.message)")
            }
            jwk.keyID = try arguments.value(JWKGenerateOptions.kid) ?? jwk.thumbprint()
            context.printJSON(jwk.json)
            return .success
        })

    /// The options of `jwk generate`.
    enum JWKGenerateOptions {
        /// `--alg <alg>`: the algorithm the new key signs with.
        static let alg = OptionSpec.option(
            "alg", value: "alg", help: "The signing algorithm the key is for.", required: true,
            allowed: ["ES256", "RS256", "PS256"])
        /// `--kid <kid>`: the key id, instead of the thumbprint.
        static let kid = OptionSpec.option(
            "kid", value: "kid", help: "The key id (kid) to record in the JWK.")
    }

    static let jwkPublicCommand = CommandSpec(
        name: "public", abstract: "Read a private JWK on standard input and print its public JWK.",
        run: { _, context in
            let jwk = try readJWK(try context.readInput(), source: "standard input")
            _ = try jwk.verificationKey()
            context.printJSON(jwk.publicKey.json)
            return .success
        })

    static let jwkThumbprintCommand = CommandSpec(
        name: "thumbprint",
        abstract: "Read a JWK on standard input and print its RFC 7638 SHA-256 thumbprint.",
        run: { _, context in
            let jwk = try readJWK(try context.readInput(), source: "standard input")
            context.writeOut(try jwk.thumbprint() + "\n")
            return .success
        })

    /// Reads a JWK, turning parse errors into a failure that names the source.
    static func readJWK(_ bytes: [UInt8], source: String) throws -> JWK {
        do {
            return try JWK.parse(bytes)
        } catch {
            throw CommandFailure("\(source): not a usable JWK: \(error.message)")
        }
    }
}
