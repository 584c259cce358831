public import HTTPCore
public import JOSE
import Locking

/// Apple's JWK Set (`/auth/keys`), fetched when first needed and again, once, when a token
/// names a key the cached set lacks (key rotation: OpenID Connect Core §10.1.1, OpenID RP test
/// `rp-key-rotation-op-sign-key-native`).
///
/// The cache sits behind a lock that is never held across the fetch; two verifications that
/// miss at the same time may both fetch, which is harmless.
public final class AppleKeyFetcher: Sendable {
    public let keysURL: String
    private let transport: any HTTPTransport
    private let cache = Mutex<(keys: JWKCollection?, set: JWKSet?, fetches: Int)>((nil, nil, 0))

    /// - Parameter keysURL: the JWK Set URL, e.g. `AppleIDProvider.url(AppleIDProvider.Path.keys)`
    ///   or `https://appleid.apple.com/auth/keys`.
    public init(transport: any HTTPTransport, keysURL: String) {
        self.transport = transport
        self.keysURL = keysURL
    }

    /// How many times the set was fetched.
    public var fetchCount: Int { cache.withLock { $0.fetches } }

    /// The cached key set, fetched first when there is none or when `refresh` is set.
    public func keys(refresh: Bool = false) async throws(AppleTokenError) -> JWKSet {
        if !refresh, let set = cache.withLock({ $0.set }) { return set }
        return try await fetch().set
    }

    /// Verifies an identity token (`AppleIdentityToken.verify`), fetching the keys again once
    /// when the token's `kid` is not in the cached set.
    public func verify(
        _ token: String, audience: String, now: Int64, expectedNonceHash: String?, leeway: Int64 = 0
    )
        async throws(AppleTokenError) -> AppleIdentityClaims
    {
        var fetchedNow = false
        var keys = cache.withLock { $0.keys }
        if keys == nil {
            keys = try await fetch().collection
            fetchedNow = true
        }
        while true {
            guard let current = keys else { preconditionFailure("keys were just fetched") }
            do {
                return try AppleIdentityToken.verify(
                    token, keys: current, audience: audience, now: now, expectedNonceHash: expectedNonceHash,
                    leeway: leeway)
            } catch {
                guard error.code == .unknownKey, !fetchedNow else {
                    throw AppleTokenError(
                        .invalidIdentityToken, "the identity token is not valid: \(error.message)",
                        tokenError: error)
                }
                keys = try await fetch().collection
                fetchedNow = true
            }
        }
    }

    private func fetch() async throws(AppleTokenError) -> (set: JWKSet, collection: JWKCollection) {
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(url: keysURL))
        } catch {
            throw AppleTokenError(
                .transportFailed, "\(keysURL) did not answer: \(error.message)", transportError: error)
        }
        guard response.status == 200 else {
            throw AppleTokenError(
                .invalidResponse, "\(keysURL) answered \(response.status)", status: response.status)
        }
        let set: JWKSet
        do {
            set = try JWKSet.parse(response.body)
        } catch {
            throw AppleTokenError(
                .invalidResponse, "\(keysURL) is not a JWK Set: \(error.message)", status: response.status,
                tokenError: error)
        }
        let collection = JWKCollection(set)
        cache.withLock { $0 = (collection, set, $0.fetches + 1) }
        return (set, collection)
    }
}
