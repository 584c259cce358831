import Cryptography
import Testing

@Suite("PEM import and export")
struct PEMTests {
    /// The RFC P-256 key exports to the same PKCS #8 and SPKI bytes that the OpenSSL command line writes.
    @Test("P-256 export matches OpenSSL byte for byte")
    func p256Export() {
        #expect(SharedKeys.rfcP256.pemRepresentation() == Fixtures.rfcP256PKCS8 + "\n")
        #expect(SharedKeys.rfcP256.publicKey.pemRepresentation() == Fixtures.rfcP256SPKI + "\n")
    }

    /// The RFC RSA key exports to the same PKCS #8 and SPKI bytes that the OpenSSL command line writes.
    @Test("RSA export matches OpenSSL byte for byte")
    func rsaExport() {
        #expect(SharedKeys.rfcRSA.pemRepresentation() == Fixtures.rfcRSAPKCS8 + "\n")
        #expect(SharedKeys.rfcRSA.publicKey.pemRepresentation() == Fixtures.rfcRSASPKI + "\n")
    }

    /// PKCS #8 and SEC 1 forms of the RFC P-256 key import to its d, x, y; SPKI to its x, y.
    @Test("P-256 import from PKCS #8, SEC 1 and SPKI")
    func p256Import() throws {
        for pem in [Fixtures.rfcP256PKCS8, Fixtures.rfcP256SEC1] {
            let key = try P256PrivateKey(pem: pem)
            #expect(key.rawScalar == RFC7515.es256D)
            #expect(key.publicKey.x == RFC7515.es256X)
            #expect(key.publicKey.y == RFC7515.es256Y)
        }
        let publicKey = try P256PublicKey(pem: Fixtures.rfcP256SPKI)
        #expect(publicKey.x == RFC7515.es256X)
        #expect(publicKey.isValidSignature(RFC7515.es256Signature, for: RFC7515.es256SigningInput))
    }

    /// PKCS #8 and PKCS #1 forms of the RFC RSA key import to its components; SPKI and PKCS #1 public to n, e.
    @Test("RSA import from PKCS #8, PKCS #1, SPKI and PKCS #1 public")
    func rsaImport() throws {
        for pem in [Fixtures.rfcRSAPKCS8, Fixtures.rfcRSAPKCS1] {
            #expect(try RSAPrivateKey(pem: pem).components == RFC7515.rsaComponents)
        }
        for pem in [Fixtures.rfcRSASPKI, Fixtures.rfcRSAPublicPKCS1] {
            let publicKey = try RSAPublicKey(pem: pem)
            #expect(publicKey.n == RFC7515.rsaComponents.n)
            #expect(publicKey.e == RFC7515.rsaComponents.e)
            #expect(
                publicKey.isValidSignature(
                    RFC7515.rs256Signature, for: RFC7515.rs256SigningInput, padding: .pkcs1v15))
        }
    }

    /// Generated keys survive export and re-import unchanged.
    @Test("generated keys round-trip through PEM")
    func generatedRoundTrip() throws {
        let p256 = try P256PrivateKey()
        #expect(try P256PrivateKey(pem: p256.pemRepresentation()).rawScalar == p256.rawScalar)
        #expect(try P256PublicKey(pem: p256.publicKey.pemRepresentation()).x == p256.publicKey.x)
        let rsa = SharedKeys.generatedRSA
        #expect(try RSAPrivateKey(pem: rsa.pemRepresentation()).components == rsa.components)
        #expect(try RSAPublicKey(pem: rsa.publicKey.pemRepresentation()).n == rsa.publicKey.n)
    }

    /// `openssl ecparam -genkey` output (EC PARAMETERS block first), CRLF line ends, text around the block
    /// and P-256 spelled out as explicit parameters are read; the key is written back with the named curve.
    @Test("EC PARAMETERS blocks, CRLF, surrounding text and explicit P-256 parameters are accepted")
    func tolerantParsing() throws {
        let key = try P256PrivateKey(pem: Fixtures.p256WithParameters)
        #expect(key.rawScalar.count == 32)
        let explicit = try P256PrivateKey(pem: Fixtures.p256ExplicitParameters)
        #expect(try P256PrivateKey(pem: Fixtures.p256WithParameters).rawScalar == explicit.rawScalar)
        // Named-curve PKCS #8 for P-256 is 138 bytes: 4 lines of base64.
        #expect(explicit.pemRepresentation().split(separator: "\n").count == 5)
        let crlf = Fixtures.rfcP256SEC1.split(separator: "\n").joined(separator: "\r\n")
        #expect(try P256PrivateKey(pem: "Key for tests:\r\n" + crlf + "\r\n").rawScalar == RFC7515.es256D)
    }

    /// PrivateKey and PublicKey pick the key type from the PEM.
    @Test("PrivateKey and PublicKey dispatch on the key type")
    func runtimeTypes() throws {
        guard case .p256(let p256) = try PrivateKey(pem: Fixtures.rfcP256SEC1) else {
            Issue.record("expected a P-256 key")
            return
        }
        #expect(p256.rawScalar == RFC7515.es256D)
        guard case .rsa(let rsa) = try PrivateKey(pem: Fixtures.rfcRSAPKCS8) else {
            Issue.record("expected an RSA key")
            return
        }
        #expect(rsa.publicKey.n == RFC7515.rsaComponents.n)
        guard case .p256 = try PublicKey(pem: Fixtures.rfcP256SPKI),
            case .rsa = try PublicKey(pem: Fixtures.rfcRSAPublicPKCS1)
        else {
            Issue.record("PublicKey picked the wrong type")
            return
        }
    }

    /// A P-256 PEM given to an RSA initialiser, and an RSA PEM given to a P-256 one, fail as invalidKey.
    @Test("keys of the other algorithm are rejected")
    func wrongAlgorithm() {
        #expect(cryptoError { try RSAPrivateKey(pem: Fixtures.rfcP256PKCS8) }?.code == .invalidKey)
        #expect(cryptoError { try RSAPrivateKey(pem: Fixtures.rfcP256SEC1) }?.code == .invalidKey)
        #expect(cryptoError { try RSAPublicKey(pem: Fixtures.rfcP256SPKI) }?.code == .invalidKey)
        #expect(cryptoError { try P256PrivateKey(pem: Fixtures.rfcRSAPKCS8) }?.code == .invalidKey)
        #expect(cryptoError { try P256PrivateKey(pem: Fixtures.rfcRSAPKCS1) }?.code == .invalidKey)
        #expect(cryptoError { try P256PublicKey(pem: Fixtures.rfcRSASPKI) }?.code == .invalidKey)
        #expect(cryptoError { try P256PublicKey(pem: Fixtures.rfcRSAPublicPKCS1) }?.code == .invalidKey)
    }

    /// A private PEM where a public key is expected, and the reverse, fail as invalidKey.
    @Test("private and public PEMs are not interchangeable")
    func wrongVisibility() {
        #expect(cryptoError { try P256PublicKey(pem: Fixtures.rfcP256PKCS8) }?.code == .invalidKey)
        #expect(cryptoError { try PublicKey(pem: Fixtures.rfcRSAPKCS1) }?.code == .invalidKey)
        #expect(cryptoError { try P256PrivateKey(pem: Fixtures.rfcP256SPKI) }?.code == .invalidKey)
        #expect(cryptoError { try PrivateKey(pem: Fixtures.rfcRSASPKI) }?.code == .invalidKey)
    }

    /// Other curves, Ed25519, PSS-restricted RSA and encrypted keys are refused.
    @Test("unsupported keys are refused with a precise code")
    func unsupportedKeys() {
        #expect(cryptoError { try P256PrivateKey(pem: Fixtures.p384) }?.code == .invalidKey)
        #expect(cryptoError { try PrivateKey(pem: Fixtures.p384) }?.message.contains("secp384r1") == true)
        #expect(cryptoError { try PrivateKey(pem: Fixtures.ed25519) }?.code == .unsupported)
        #expect(cryptoError { try PrivateKey(pem: Fixtures.rsaPSSRestricted) }?.code == .unsupported)
        #expect(cryptoError { try P256PrivateKey(pem: Fixtures.encryptedP256) }?.code == .unsupported)
        let legacyEncrypted = """
            -----BEGIN EC PRIVATE KEY-----
            Proc-Type: 4,ENCRYPTED
            DEK-Info: AES-128-CBC,0123456789ABCDEF0123456789ABCDEF

            AAAA
            -----END EC PRIVATE KEY-----
            """
        #expect(cryptoError { try PrivateKey(pem: legacyEncrypted) }?.code == .unsupported)
    }

    /// Empty text, garbage, truncated PEM, a broken body, wrong labels and oversized input give typed errors.
    @Test("malformed PEM gives typed errors")
    func malformed() {
        let pem = Fixtures.rfcP256PKCS8
        let lines = pem.split(separator: "\n")
        let cases: [(String, CryptoError.Code)] = [
            ("", .invalidPEM),
            ("not a key at all", .invalidPEM),
            (String(pem.prefix(pem.count / 2)), .invalidPEM),
            (lines.dropLast().joined(separator: "\n"), .invalidPEM),
            (lines.dropFirst().joined(separator: "\n"), .invalidPEM),
            (pem.replacingFirst("MIGH", with: "M!GH"), .invalidPEM),
            (pem.replacingFirst("MIGH", with: "MIGI"), .invalidPEM),
            ([lines[0], lines[1], lines.last!].joined(separator: "\n"), .invalidPEM),
            ("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----", .invalidPEM),
            (pem.replacingFirst("END PRIVATE KEY", with: "END PUBLIC KEY"), .invalidPEM),
            (
                pem.replacingFirst("PRIVATE KEY", with: "CERTIFICATE").replacingFirst(
                    "PRIVATE KEY", with: "CERTIFICATE"), .invalidPEM
            ),
            (pem + "\n" + pem, .invalidPEM),
            (String(repeating: "A", count: 70_000), .invalidInput),
        ]
        for (text, code) in cases {
            let error = cryptoError { try P256PrivateKey(pem: text) }
            #expect(error?.code == code, "\(text.prefix(60))")
            #expect(error?.message.isEmpty == false)
            #expect(cryptoError { try PrivateKey(pem: text) }?.code == code)
            #expect(cryptoError { try PublicKey(pem: text) } != nil)
        }
    }

    /// Error messages name the problem and never contain key material.
    @Test("error messages do not leak key material")
    func messagesAreSafe() throws {
        let error = try #require(cryptoError { try RSAPrivateKey(pem: Fixtures.rfcP256PKCS8) })
        #expect(error.description.hasPrefix("invalidKey: "))
        for secret in ["MIGHAgEAMBMGByqGSM49", "jpsQnnGQmL", "8e9b109e"] {
            #expect(!error.description.contains(secret))
        }
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        replacing(target, with: replacement, maxReplacements: 1)
    }
}
