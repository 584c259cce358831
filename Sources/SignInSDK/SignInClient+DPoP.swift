import Cryptography
import HTTPCore
import JOSE
import OAuthCore

extension SignInClient {
    /// A DPoP proof for one request (RFC 9449 §4), signed with the device key from storage,
    /// created on first use (P-256 from the injected random source).
    func dpopProof(method: String, url: String, accessToken: String?) throws(SignInError) -> String {
        let signer = try dpopKey()
        let nonce = URLParts(url)?.origin.flatMap { dpopNonces[$0] }
        do {
            return try DPoPProof.make(
                signer: signer, method: method, url: url, accessToken: accessToken, nonce: nonce,
                issuedAt: environment.clock.now(), id: randomToken())
        } catch {
            throw SignInError(.invalidConfiguration, "could not sign a DPoP proof: \(error)")
        }
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
