import Cryptography
import HTTPCore
import Issuer
import JOSE
import JSON
import Recordings
import Scenario

/// What a replay does about the signed data that binds the recorded app's random values: an ID
/// token from a code exchange carries the `nonce` of its authorization request (OpenID Connect
/// Core §3.1.3.7 step 11), and the replayed app sent another one.
///
/// Such a token is served with the replayed app's `nonce` put in its claims and signed again by
/// a replay key that stands for the recorded key which signed it, and the key sets the capture
/// holds are served with that replay key beside (or, for tokens without `kid`, in place of) the
/// recorded one. Nothing else changes: a token whose signature the recorded keys do not verify
/// (a bad signature, `alg: none`, an HMAC, a key nobody published) is served as recorded, and
/// so is one whose `nonce` matches no recorded request (an issuer that sent the wrong one). The
/// recorded tokens themselves are audited against the recorded keys, apart from the replay.
struct ReplayKeys: Sendable {
    /// How one recorded key is stood in for.
    struct Replacement: Sendable {
        /// The recorded key.
        var recorded: JWK
        /// Signs in its place, with the `kid` the re-signed tokens carry.
        var signer: JWSSigner
        /// Whether the replay key replaces the recorded one in served key sets (its tokens have
        /// no `kid`, so a set with both would be ambiguous) or stands beside it.
        var replacesRecorded: Bool
    }

    /// Replacements by the recorded key's RFC 7638 thumbprint (for a capture without key
    /// sets, by the token's `alg` and `kid`).
    private(set) var replacements: [String: Replacement] = [:]
    /// For each exchange whose ID token is re-signed, the thumbprint of the key it needs.
    private(set) var resignedTokens: [Int: String] = [:]
    /// The key set served for a capture that holds none (the app had cached its keys before
    /// the capture began): every ID token is signed again by a replay key, and this set holds
    /// them.
    private(set) var synthesizedKeySet: JWKSet?

    /// Reads which tokens need re-signing and makes their keys. `seed` makes the replay keys
    /// (P-256 drawn from it, RSA from the issuer's fixed test pool).
    init(_ analysis: CaptureAnalysis, seed: UInt64) {
        let exchanges = analysis.capture.exchanges
        var keys: [JWK] = []
        var seen = Set<String>()
        for (index, entry) in analysis.entries.enumerated() where entry.role == .jwks {
            guard let set = try? JWKSet.parse(exchanges[index].responseBody) else { continue }
            for key in set.keys {
                guard let thumbprint = try? key.thumbprint(), seen.insert(thumbprint).inserted else {
                    continue
                }
                keys.append(key)
            }
        }
        let source = SigningKeySource.seeded(SeededRandom(seed: seed ^ 0x7265_706c_6179))
        if keys.isEmpty {
            synthesize(analysis, source: source)
            return
        }
        let nonces = Set(analysis.signIns.compactMap(\.nonce))
        guard !nonces.isEmpty else { return }
        // The tokens that must change (they carry a recorded request's nonce) or that name no
        // key, by the recorded key that signed them. Only these decide which keys are stood
        // in for, so the others (a refresh's, with a `kid`) are not verified here: the audit
        // verifies every token anyway, and skipping them saves a tenth of a 10,000-refresh
        // replay (`scripts/bench replay`).
        var signedBy: [String: [(exchange: Int, hasKeyID: Bool, changes: Bool)]] = [:]
        var algorithms: [String: JWSAlgorithm] = [:]
        var byThumbprint: [String: JWK] = [:]
        var others: [(exchange: Int, jws: JWS)] = []
        for (index, entry) in analysis.entries.enumerated() where entry.role == .token {
            guard let token = Self.idToken(in: exchanges[index]), let jws = try? JWS.parse(token),
                let algorithm = try? jws.header.validated()
            else { continue }
            let nonce = (try? jws.payloadObject())?["nonce"]?.stringValue
            let changes = nonce.map(nonces.contains) ?? false
            guard changes || jws.header.keyID == nil else {
                others.append((index, jws))
                continue
            }
            guard let key = keys.first(where: { (try? jws.verify(with: $0)) != nil }),
                let thumbprint = try? key.thumbprint()
            else { continue }
            signedBy[thumbprint, default: []].append((index, jws.header.keyID != nil, changes))
            algorithms[thumbprint] = algorithm
            byThumbprint[thumbprint] = key
        }
        for (thumbprint, tokens) in signedBy.sorted(by: { $0.key < $1.key })
        where tokens.contains(where: \.changes) {
            guard let recorded = byThumbprint[thumbprint], let algorithm = algorithms[thumbprint],
                let key = try? source.makeKey(for: algorithm)
            else { continue }
            let replaces = tokens.contains { !$0.hasKeyID } || recorded.keyID == nil
            let keyID = replaces ? recorded.keyID : (recorded.keyID ?? "key") + "~replay"
            guard let signer = try? JWSSigner(key: key, algorithm: algorithm, keyID: keyID) else { continue }
            replacements[thumbprint] = Replacement(
                recorded: recorded, signer: signer, replacesRecorded: replaces)
            for token in tokens where token.changes || replaces {
                resignedTokens[token.exchange] = thumbprint
            }
        }
        // A replay key that replaces its recorded key in the served sets must sign every token
        // the recorded key signed.
        let replaced = replacements.filter(\.value.replacesRecorded)
        guard !replaced.isEmpty else { return }
        for other in others {
            if let (thumbprint, _) = replaced.first(where: {
                (try? other.jws.verify(with: $0.value.recorded)) != nil
            }) {
                resignedTokens[other.exchange] = thumbprint
            }
        }
    }

    /// No recorded key set: one replay key per `alg` and `kid` the tokens name, every token
    /// signed again, and the set of those keys served where the app looks for keys.
    private mutating func synthesize(_ analysis: CaptureAnalysis, source: SigningKeySource) {
        var keys: [JWK] = []
        for (index, entry) in analysis.entries.enumerated() where entry.role == .token {
            guard let token = Self.idToken(in: analysis.capture.exchanges[index]),
                let jws = try? JWS.parse(token),
                let algorithm = try? jws.header.validated()
            else { continue }
            let name = algorithm.rawValue + "|" + (jws.header.keyID ?? "")
            if replacements[name] == nil {
                guard let key = try? source.makeKey(for: algorithm),
                    let signer = try? JWSSigner(key: key, algorithm: algorithm, keyID: jws.header.keyID)
                else { continue }
                replacements[name] = Replacement(
                    recorded: signer.publicJWK, signer: signer, replacesRecorded: true)
                keys.append(signer.publicJWK)
            }
            resignedTokens[index] = name
        }
        if !keys.isEmpty { synthesizedKeySet = JWKSet(keys: keys) }
    }

    /// The `id_token` of a token response.
    static func idToken(in exchange: RecordedExchange) -> String? {
        guard exchange.status == 200, let body = try? JSONValue.parseObject(exchange.responseBody) else {
            return nil
        }
        return body["id_token"]?.stringValue
    }

    var isEmpty: Bool { replacements.isEmpty }

    /// Exchanges whose ID token is re-signed, in order.
    var resignedExchanges: [Int] { resignedTokens.keys.sorted() }

    /// A recorded key set as the replay serves it: each replaced key swapped for its replay
    /// key, each other replay key added after the recorded ones.
    func servedKeySet(_ body: [UInt8]) -> [UInt8]? {
        guard !isEmpty, let set = try? JWKSet.parse(body) else { return nil }
        var keys: [JWK] = []
        var added: [JWK] = []
        for key in set.keys {
            guard let thumbprint = try? key.thumbprint(), let replacement = replacements[thumbprint] else {
                keys.append(key)
                continue
            }
            if replacement.replacesRecorded {
                keys.append(replacement.signer.publicJWK)
            } else {
                keys.append(key)
                added.append(replacement.signer.publicJWK)
            }
        }
        guard keys.count + added.count > 0 else { return nil }
        return JWKSet(keys: keys + added).json.serialized()
    }

    /// The ID token of exchange `index`'s response signed again by its replay key, with its
    /// claims passed through `transform` (the nonce put to the replayed app's); nil when the
    /// token is not re-signed.
    func resign(_ token: String, exchange index: Int, transform: ([String: JSONValue]) -> [String: JSONValue])
        -> String?
    {
        guard let thumbprint = resignedTokens[index], let replacement = replacements[thumbprint],
            let jws = try? JWS.parse(token), let claims = try? jws.payloadObject()
        else { return nil }
        var header = jws.header.members
        header["alg"] = nil
        header["kid"] = nil
        // A token without `kid` stays without (the key set's lookup is part of what is replayed).
        let keyID = replacement.replacesRecorded ? jws.header.keyID : replacement.signer.keyID
        guard
            let signer = try? JWSSigner(
                key: replacement.signer.key, algorithm: replacement.signer.algorithm, keyID: keyID)
        else { return nil }
        return try? JWS.sign(
            payload: JSONValue.object(transform(claims)).serialized(), signer: signer, extraHeader: header)
    }
}
