public import Cryptography
public import JOSE

/// One of the provider's RSA keys: signs identity tokens RS256 under its `kid`.
public struct AppleSigningKey: Sendable {
    /// The `kid` in token headers and in `/auth/keys`.
    public let keyID: String
    public let privateKey: RSAPrivateKey
    let signer: JWSSigner

    /// Wraps a key; without a `keyID`, one is derived from its RFC 7638 thumbprint, so the same
    /// key always has the same id (ten letters and digits, like Apple's).
    public init(privateKey: RSAPrivateKey, keyID: String? = nil) {
        let publicJWK = JWK(privateKey.publicKey, algorithm: JWSAlgorithm.rs256.rawValue)
        let derived = ((try? publicJWK.thumbprint()) ?? "").filter { $0.isLetter || $0.isNumber }
        let keyID = keyID ?? String(derived.prefix(10))
        self.keyID = keyID
        self.privateKey = privateKey
        // An RSA key with RS256 is always a valid pair; JWSSigner refuses only mismatched ones.
        guard let signer = try? JWSSigner(key: .rsa(privateKey), algorithm: .rs256, keyID: keyID) else {
            preconditionFailure("an RSA key must pair with RS256")
        }
        self.signer = signer
    }

    /// The public JWK: `kty` RSA, `alg` RS256, `use` sig, `kid`.
    public var publicJWK: JWK { JWK(privateKey.publicKey, keyID: keyID, algorithm: "RS256", use: "sig") }
}

/// The keys an `AppleIDProvider` starts with: several published in `/auth/keys` (the first signs),
/// and a reserve that `rotateKeys()` takes from before it generates new ones.
///
/// RSA key generation takes about 150 ms, so a provider never generates a key per request or
/// per start: build a set once (`fixed(seed:)` costs nothing after the first call in a process)
/// and hand it to every provider that needs one.
public struct AppleKeySet: Sendable {
    /// Keys in `/auth/keys` from the start; the first signs identity tokens.
    public let publishedKeys: [AppleSigningKey]
    /// Keys `rotateKeys()` activates, in order, before it generates fresh ones.
    public let reserveKeys: [AppleSigningKey]

    public init(published: [AppleSigningKey], reserve: [AppleSigningKey] = []) {
        precondition(!published.isEmpty, "an Apple key set needs at least one published key")
        self.publishedKeys = published
        self.reserveKeys = reserve
    }

    /// The key that signs first.
    public var activeKey: AppleSigningKey { publishedKeys[0] }

    /// The published keys as a JWK Set.
    public var publicKeySet: JWKSet { JWKSet(keys: publishedKeys.map(\.publicJWK)) }

    /// `count` fresh RSA-2048 keys from the system's CSPRNG: slow (about 150 ms a key) and
    /// different every run. Use `fixed(seed:)` for reproducible runs.
    public static func generate(count: Int = 3) throws(CryptoError) -> AppleKeySet {
        precondition(count >= 1, "an Apple key set needs at least one key")
        var keys: [AppleSigningKey] = []
        for _ in 0..<count { keys.append(AppleSigningKey(privateKey: try RSAPrivateKey(bits: 2048))) }
        return AppleKeySet(published: keys)
    }

    /// How many public test keys `fixed(seed:)` chooses from.
    public static var fixedKeyCount: Int { fixedKeys.count }

    /// The embedded public test keys (`TestKeys.swift`), ordered by `seed`: the first `count`
    /// are published, the rest are the reserve for rotation. The same seed gives the same keys
    /// in the same order on every machine.
    ///
    /// These keys are public: never use them, or trust what they sign, outside the simulator.
    public static func fixed(seed: UInt64, count: Int = 3) -> AppleKeySet {
        precondition(
            (1...fixedKeys.count).contains(count), "count must be 1...\(fixedKeys.count), got \(count)")
        // Fisher–Yates over the key indices, driven by the seeded stream (construction in
        // SeededRandom); changing this changes every recorded run, like reordering the keys.
        let random = SeededRandom(seed: seed)
        var order = Array(fixedKeys.indices)
        for index in stride(from: order.count - 1, to: 0, by: -1) {
            let draw = random.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            order.swapAt(index, Int(draw % UInt64(index + 1)))
        }
        let keys = order.map { fixedKeys[$0] }
        return AppleKeySet(published: Array(keys.prefix(count)), reserve: Array(keys.dropFirst(count)))
    }

    /// The test keys, parsed once per process (a global `let` is initialised lazily and once).
    private static let fixedKeys: [AppleSigningKey] = AppleTestKeys.pems.enumerated().map { index, pem in
        do {
            return AppleSigningKey(privateKey: try RSAPrivateKey(pem: pem))
        } catch {
            fatalError("embedded Apple test key \(index) does not parse: \(error)")
        }
    }
}
