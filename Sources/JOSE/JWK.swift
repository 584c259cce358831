public import Cryptography
public import JSON

/// A JSON Web Key for EC P-256 or RSA (RFC 7517 §4, RFC 7518 §6).
///
/// Members other than the ones modelled here are kept in `otherMembers` so that a key read
/// from a JWK Set serialises back without loss.
public struct JWK: Sendable, Hashable {
    public enum KeyType: String, Sendable, Hashable {
        case ec = "EC"
        case rsa = "RSA"
    }

    public var keyType: KeyType
    /// `kid` (RFC 7517 §4.5).
    public var keyID: String?
    /// `alg` (RFC 7517 §4.4): when present, the only algorithm this key may be used with.
    public var algorithm: String?
    /// `use` (RFC 7517 §4.2): `sig` or `enc`.
    public var use: String?
    /// `key_ops` (RFC 7517 §4.3).
    public var keyOperations: [String]?

    // EC (RFC 7518 §6.2)
    public var curve: String?
    public var x: [UInt8]?
    public var y: [UInt8]?
    // RSA (RFC 7518 §6.3)
    public var n: [UInt8]?
    public var e: [UInt8]?
    // Private parts (EC `d`; RSA `d`, `p`, `q`, `dp`, `dq`, `qi`)
    public var d: [UInt8]?
    public var p: [UInt8]?
    public var q: [UInt8]?
    public var dp: [UInt8]?
    public var dq: [UInt8]?
    public var qi: [UInt8]?

    public var otherMembers: [String: JSONValue]

    /// Largest JWK text accepted by `parse`.
    public static let maximumSize = 64 * 1024

    public init(keyType: KeyType, keyID: String? = nil, algorithm: String? = nil, use: String? = nil) {
        self.keyType = keyType
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = use
        self.otherMembers = [:]
    }

    public var isPrivate: Bool { d != nil }

    /// Members that hold private or secret key material: EC's `d` (RFC 7518 §6.2.2), RSA's `d`,
    /// `p`, `q`, `dp`, `dq`, `qi` and `oth` (RFC 7518 §6.3.2), and a symmetric key's `k`
    /// (RFC 7518 §6.4.1: an `oct` key is nothing but its secret, so it is never a public key).
    public static let privateMemberNames = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The members of `privateMemberNames` that a JWK's JSON object holds, in that order; empty
    /// for a public key and for a value that is not an object. Read from the JSON rather than a
    /// parsed `JWK`, which drops keys of types it does not model and keeps `p` without `d`.
    public static func privateMembers(in json: JSONValue) -> [String] {
        guard let members = json.objectValue else { return [] }
        return privateMemberNames.filter { members[$0] != nil }
    }

    /// The same key without private members.
    public var publicKey: JWK {
        var copy = self
        copy.d = nil
        copy.p = nil
        copy.q = nil
        copy.dp = nil
        copy.dq = nil
        copy.qi = nil
        copy.otherMembers = otherMembers.filter { !["oth", "k"].contains($0.key) }
        return copy
    }
}

// MARK: - From and to keys

extension JWK {
    /// A public EC key.
    public init(
        _ key: P256PublicKey, keyID: String? = nil, algorithm: String? = "ES256", use: String? = "sig"
    ) {
        self.init(keyType: .ec, keyID: keyID, algorithm: algorithm, use: use)
        curve = "P-256"
        x = key.x
        y = key.y
    }

    /// A private EC key.
    public init(
        _ key: P256PrivateKey, keyID: String? = nil, algorithm: String? = "ES256", use: String? = "sig"
    ) {
        self.init(key.publicKey, keyID: keyID, algorithm: algorithm, use: use)
        d = key.rawScalar
    }

    /// A public RSA key.
    public init(_ key: RSAPublicKey, keyID: String? = nil, algorithm: String? = "RS256", use: String? = "sig")
    {
        self.init(keyType: .rsa, keyID: keyID, algorithm: algorithm, use: use)
        n = key.n
        e = key.e
    }

    /// A private RSA key.
    public init(
        _ key: RSAPrivateKey, keyID: String? = nil, algorithm: String? = "RS256", use: String? = "sig"
    ) {
        self.init(key.publicKey, keyID: keyID, algorithm: algorithm, use: use)
        let components = key.components
        d = components.d
        p = components.p
        q = components.q
        dp = components.dp
        dq = components.dq
        qi = components.qi
    }

    /// The public key this JWK describes, checked for validity.
    public func verificationKey() throws(JOSEError) -> PublicKey {
        do {
            switch keyType {
            case .ec:
                guard curve == "P-256" else {
                    throw JOSEError(
                        .malformedKey, "EC key curve \(curve.map { "\"\($0)\"" } ?? "missing") is not P-256")
                }
                guard let x, let y else { throw JOSEError(.malformedKey, "EC key lacks x or y") }
                return .p256(try P256PublicKey(x: x, y: y))
            case .rsa:
                guard let n, let e else { throw JOSEError(.malformedKey, "RSA key lacks n or e") }
                return .rsa(try RSAPublicKey(n: n, e: e))
            }
        } catch let error as CryptoError {
            throw JOSEError(.malformedKey, error.message)
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.malformedKey, "\(error)")
        }
    }

    /// The private key this JWK describes, checked for validity and consistency.
    public func signingKey() throws(JOSEError) -> PrivateKey {
        guard let d else { throw JOSEError(.malformedKey, "the JWK has no private part (d)") }
        do {
            switch keyType {
            case .ec:
                guard curve == "P-256" else {
                    throw JOSEError(
                        .malformedKey, "EC key curve \(curve.map { "\"\($0)\"" } ?? "missing") is not P-256")
                }
                guard let x, let y else { throw JOSEError(.malformedKey, "EC key lacks x or y") }
                return .p256(try P256PrivateKey(d: d, x: x, y: y))
            case .rsa:
                guard let n, let e else { throw JOSEError(.malformedKey, "RSA key lacks n or e") }
                let crt = [p, q, dp, dq, qi]
                let present = crt.compactMap { $0 }.count
                guard present == 0 || present == 5 else {
                    throw JOSEError(.malformedKey, "RSA key has some but not all of p, q, dp, dq, qi")
                }
                let components = RSAPrivateComponents(n: n, e: e, d: d, p: p, q: q, dp: dp, dq: dq, qi: qi)
                return .rsa(try RSAPrivateKey(components: components))
            }
        } catch let error as CryptoError {
            throw JOSEError(.malformedKey, error.message)
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.malformedKey, "\(error)")
        }
    }
}

// MARK: - Thumbprint

extension JWK {
    /// The RFC 7638 thumbprint input: the required public members only, keys in lexicographic
    /// order, no white space (RFC 7638 §3.2–3.3).
    public func thumbprintInput() throws(JOSEError) -> [UInt8] {
        let members: [String: JSONValue]
        switch keyType {
        case .ec:
            guard let curve, let x, let y else { throw JOSEError(.malformedKey, "EC key lacks crv, x or y") }
            members = [
                "crv": .string(curve), "kty": "EC", "x": .string(Base64URL.encode(x)),
                "y": .string(Base64URL.encode(y)),
            ]
        case .rsa:
            guard let n, let e else { throw JOSEError(.malformedKey, "RSA key lacks n or e") }
            members = ["e": .string(Base64URL.encode(e)), "kty": "RSA", "n": .string(Base64URL.encode(n))]
        }
        return JSONValue.object(members).serialized()
    }

    /// The SHA-256 JWK thumbprint, base64url encoded (RFC 7638 §3), as used for DPoP `jkt`.
    public func thumbprint() throws(JOSEError) -> String {
        Base64URL.encode(SHA256.hash(try thumbprintInput()))
    }
}

// MARK: - JSON

extension JWK {
    /// Parses JWK text.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JOSEError) -> JWK {
        guard bytes.count <= maximumSize else {
            throw JOSEError(.tooLarge, "JWK text is \(bytes.count) bytes; the limit is \(maximumSize)")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw JOSEError(.malformedJSON, "JWK is not JSON: \(error.message)")
        }
        return try JWK(json: value)
    }

    /// Parses JWK text given as a string.
    public static func parse(_ text: String) throws(JOSEError) -> JWK { try parse(Array(text.utf8)) }

    /// Reads a JWK from a JSON object, checking member types (RFC 7517 §4).
    public init(json: JSONValue) throws(JOSEError) {
        guard case .object(var members) = json else {
            throw JOSEError(.malformedKey, "a JWK must be a JSON object")
        }
        guard let ktyValue = members.removeValue(forKey: "kty") else {
            throw JOSEError(.malformedKey, "the JWK has no kty")
        }
        guard let kty = ktyValue.stringValue else { throw JOSEError(.malformedKey, "kty must be a string") }
        guard let keyType = KeyType(rawValue: kty) else {
            throw JOSEError(.malformedKey, "kty \"\(kty.prefix(16))\" is not supported (EC and RSA are)")
        }
        self.init(keyType: keyType)

        func string(_ name: String) throws(JOSEError) -> String? {
            guard let value = members.removeValue(forKey: name) else { return nil }
            guard let text = value.stringValue else {
                throw JOSEError(.malformedKey, "\(name) must be a string")
            }
            return text
        }
        func bytes(_ name: String) throws(JOSEError) -> [UInt8]? {
            guard let text = try string(name) else { return nil }
            let decoded: [UInt8]
            do {
                decoded = try Base64URL.decode(text, maximumLength: 4096)
            } catch {
                throw JOSEError(.malformedKey, "\(name) is not valid base64url: \(error.message)")
            }
            guard !decoded.isEmpty else { throw JOSEError(.malformedKey, "\(name) is empty") }
            return decoded
        }

        keyID = try string("kid")
        algorithm = try string("alg")
        use = try string("use")
        if let ops = members.removeValue(forKey: "key_ops") {
            guard let array = ops.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw JOSEError(.malformedKey, "key_ops must be an array of strings")
            }
            keyOperations = array.compactMap(\.stringValue)
        }
        switch keyType {
        case .ec:
            curve = try string("crv")
            x = try bytes("x")
            y = try bytes("y")
            guard curve != nil, x != nil, y != nil else {
                throw JOSEError(.malformedKey, "an EC JWK needs crv, x and y (RFC 7518 §6.2.1)")
            }
        case .rsa:
            n = try bytes("n")
            e = try bytes("e")
            guard n != nil, e != nil else {
                throw JOSEError(.malformedKey, "an RSA JWK needs n and e (RFC 7518 §6.3.1)")
            }
            p = try bytes("p")
            q = try bytes("q")
            dp = try bytes("dp")
            dq = try bytes("dq")
            qi = try bytes("qi")
        }
        d = try bytes("d")
        otherMembers = members
    }

    /// The JWK as a JSON object.
    public var json: JSONValue {
        var members = otherMembers
        members["kty"] = .string(keyType.rawValue)
        func put(_ name: String, _ value: String?) { if let value { members[name] = .string(value) } }
        func put(_ name: String, _ value: [UInt8]?) {
            if let value { members[name] = .string(Base64URL.encode(value)) }
        }
        put("kid", keyID)
        put("alg", algorithm)
        put("use", use)
        if let keyOperations { members["key_ops"] = .array(keyOperations.map(JSONValue.string)) }
        put("crv", curve)
        put("x", x)
        put("y", y)
        put("n", n)
        put("e", e)
        put("d", d)
        put("p", p)
        put("q", q)
        put("dp", dp)
        put("dq", dq)
        put("qi", qi)
        return .object(members)
    }
}
