import HTTPCore
import JOSE
public import JSON
import OAuthCore

extension SignInClient {
    /// POSTs a form to the token endpoint with client authentication and, when DPoP is on, a
    /// proof; retries once with the issuer's nonce on `use_dpop_nonce` (RFC 9449 §8). A proof
    /// refused while the answer's `Date` shows the device's clock skewed is retried once with
    /// the server's time (`dpop-server-date`) or fails with `dpop_clock_skew`
    /// (`correctsDPoPClock`). An error the endpoint answers names the client authentication
    /// method the request used, since the likeliest cause of `invalid_client` is a method other
    /// than the registered one.
    func tokenRequest(_ parameters: FormParameters, endpoint name: String) async throws(SignInError)
        -> TokenResponse
    {
        let metadata = try await providerMetadata()
        var retriedForNonce = false
        var correctedClock = false
        while true {
            var form = parameters
            var headers = HTTPHeaders()
            let method = try await authenticateClient(&form, headers: &headers)
            var request = HTTPRequest.form(url: metadata.tokenEndpoint, parameters: form, headers: headers)
            request.headers.replaceOrAdd(name: "Accept", value: "application/json")
            var proofIssuedAt: Int64?
            if try configuredOptions().usesDPoP {
                let proof = try dpopProof(method: "POST", url: metadata.tokenEndpoint, accessToken: nil)
                request.headers.replaceOrAdd(name: "DPoP", value: proof.proof)
                proofIssuedAt = proof.issuedAt
            }
            let response = try await send(request, endpoint: name)
            rememberDPoPNonce(from: response, url: metadata.tokenEndpoint)
            do {
                return try TokenResponse(response: response, endpoint: "the token endpoint")
            } catch
                where error.oauthError == OAuthErrorCode.useDPoPNonce && !retriedForNonce
                && response.headers["DPoP-Nonce"] != nil
            {
                retriedForNonce = true
            } catch {
                if let proofIssuedAt, Self.dpopRefusals.contains(error.oauthError ?? ""),
                    try correctsDPoPClock(
                        after: error, response: response, url: metadata.tokenEndpoint,
                        issuedAt: proofIssuedAt,
                        corrected: &correctedClock, endpoint: "the token endpoint")
                {
                    continue
                }
                throw SignInError(
                    error.code, "\(error.message) (client authentication: \(method.rawValue))",
                    oauthError: error.oauthError, status: error.status)
            }
        }
    }

    /// The OAuth errors with which a server refuses a DPoP proof (RFC 9449 §5, §7.1, §8).
    static let dpopRefusals: Set<String> = [OAuthErrorCode.invalidDPoPProof, OAuthErrorCode.useDPoPNonce]

    /// Calls the UserInfo endpoint with the current access token (OpenID Connect Core §5.3).
    public func userInfo() async throws(SignInError) -> [String: JSONValue] {
        let metadata = try await providerMetadata()
        guard let endpoint = metadata.userinfoEndpoint else {
            throw SignInError(.discoveryFailed, "the issuer advertises no userinfo_endpoint")
        }
        guard let session = try await getSession() else {
            throw SignInError(.noSession, "no one is signed in")
        }
        var retriedForNonce = false
        var correctedClock = false
        while true {
            var request = HTTPRequest(url: endpoint)
            var proofIssuedAt: Int64?
            if session.tokenType.lowercased() == "dpop" {
                request.headers.replaceOrAdd(name: "Authorization", value: "DPoP \(session.accessToken)")
                let proof = try dpopProof(method: "GET", url: endpoint, accessToken: session.accessToken)
                request.headers.replaceOrAdd(name: "DPoP", value: proof.proof)
                proofIssuedAt = proof.issuedAt
            } else {
                request.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(session.accessToken)")
            }
            let response = try await send(request, endpoint: "userinfo")
            rememberDPoPNonce(from: response, url: endpoint)
            let challenge = response.headers["WWW-Authenticate"] ?? ""
            if response.status == 401, !retriedForNonce, challenge.contains(OAuthErrorCode.useDPoPNonce) {
                retriedForNonce = true
                continue
            }
            guard response.status == 200 else {
                let failure = SignInError(
                    .tokenRequestFailed, "userinfo answered \(response.status) \(challenge.prefix(300))",
                    oauthError: Self.dpopRefusals.first { challenge.contains("error=\"\($0)\"") },
                    status: response.status)
                if let proofIssuedAt, failure.oauthError != nil,
                    try correctsDPoPClock(
                        after: failure, response: response, url: endpoint, issuedAt: proofIssuedAt,
                        corrected: &correctedClock, endpoint: "userinfo")
                {
                    continue
                }
                throw SignInError(
                    .tokenRequestFailed, "userinfo answered \(response.status)", status: response.status)
            }
            let claims: [String: JSONValue]
            do {
                claims = try JSONValue.parseObject(response.body)
            } catch {
                throw SignInError(
                    .invalidTokenResponse, "userinfo did not answer a JSON object: \(error.message)")
            }
            // OpenID Connect Core §5.3.2: the sub of the UserInfo response must be the ID token's,
            // or the response is not to be used (token substitution).
            guard let subject = claims["sub"]?.stringValue, subject == session.subject else {
                throw SignInError(
                    .invalidTokenResponse,
                    "userinfo names subject \(claims["sub"]?.stringValue.map { "\"\($0.prefix(64))\"" } ?? "none"), "
                        + "not the ID token's")
            }
            return claims
        }
    }
}
