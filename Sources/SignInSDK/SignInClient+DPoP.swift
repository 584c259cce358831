import Cryptography
import HTTPCore
import JOSE
import OAuthCore

extension SignInClient {
    /// A DPoP proof for one request (RFC 9449 §4), signed with the device key from storage,
    /// created on first use (P-256 from the injected random source), with the `iat` it carries.
    func dpopProof(method: String, url: String, accessToken: String?) throws(SignInError)
        -> (proof: String, issuedAt: Int64)
    {
        let signer = try dpopKey()
        let origin = URLParts(url)?.origin
        let nonce = origin.flatMap { dpopNonces[$0] }
        let issuedAt = environment.clock.now() + (origin.flatMap { dpopClockOffsets[$0] } ?? 0)
        do {
            let proof = try DPoPProof.make(
                signer: signer, method: method, url: url, accessToken: accessToken, nonce: nonce,
                issuedAt: issuedAt, id: randomToken())
            return (proof, issuedAt)
        } catch {
            throw SignInError(.invalidConfiguration, "could not sign a DPoP proof: \(error)")
        }
    }

    /// After a server refused a DPoP proof stamped `issuedAt`: whether to send it again with a
    /// corrected `iat`. When the answer's `Date` shows the device's clock off by more than
    /// `DPoPClockSkew.significant`, the `dpop-server-date` profile keeps the offset for that
    /// server and answers `true`, once per request (`corrected`); the default profile throws
    /// `dpop_clock_skew` naming the skew. Any other refusal answers `false`, for the caller to
    /// report as it is.
    func correctsDPoPClock(
        after refusal: SignInError, response: HTTPResponse, url: String, issuedAt: Int64,
        corrected: inout Bool,
        endpoint: String
    ) throws(SignInError) -> Bool {
        guard
            let skew = DPoPClockSkew(
                refusal: response, proofIssuedAt: issuedAt, deviceTime: environment.clock.now())
        else { return false }
        guard try configuredOptions().profile.dpopTime == .serverDate, !corrected,
            let origin = URLParts(url)?.origin
        else {
            throw skew.error(refusal: refusal, endpoint: endpoint)
        }
        dpopClockOffsets[origin] = skew.offset
        corrected = true
        return true
    }

    /// Keeps the newest `DPoP-Nonce` of a server (RFC 9449 §8.2).
    func rememberDPoPNonce(from response: HTTPResponse, url: String) {
        if let nonce = response.headers["DPoP-Nonce"], let origin = URLParts(url)?.origin {
            dpopNonces[origin] = nonce
        }
    }

    private func dpopKey() throws(SignInError) -> JWSSigner {
        if let dpopSigner { return dpopSigner }
        do {
            if let stored = try environment.storage.load(key: Self.dpopKeyKey) {
                let signer = try JWSSigner(jwk: try JWK.parse(stored), algorithm: .es256)
                dpopSigner = signer
                return signer
            }
        } catch let error as TokenStorageError {
            throw SignInError(.storage, "the DPoP key cannot be read: \(error)")
        } catch {
            throw SignInError(.storage, "the stored DPoP key is unusable: \(error)")
        }
        do {
            let key = try P256PrivateKey(random: environment.random)
            let jwk = JWK(key, keyID: nil, algorithm: "ES256", use: "sig")
            try environment.storage.save(key: Self.dpopKeyKey, value: jwk.json.serialized())
            let signer = try JWSSigner(key: .p256(key), algorithm: .es256)
            dpopSigner = signer
            return signer
        } catch {
            throw SignInError(.storage, "could not create the DPoP key: \(error)")
        }
    }
}
