import HTTPCore
import JOSE
import JSON
import OAuthCore
import Recordings
import Scenario
import SignInSDK

/// Checks of every ID token the capture holds, as the recorded keys and the recorded clock
/// judge them, apart from the replay (which may have signed some again): the signature against
/// the key sets the capture holds, `iss`, `aud`, `exp` and `iat` at the moment the token was
/// received, the `nonce` against the authorization request's, `at_hash` against the access
/// token beside it and `c_hash` against the code exchanged (OpenID Connect Core §3.1.3.7,
/// §3.1.3.8, §3.3.2.11), and a refreshed token's `iss` and `sub` against the sign-in's
/// (§12.2).
enum TokenAudit {
    /// One finding per token response with an ID token, by exchange index.
    static func audit(_ analysis: CaptureAnalysis) -> [Int: String] {
        let exchanges = analysis.capture.exchanges
        var keys: [JWK] = []
        var seen = Set<String>()
        for (index, entry) in analysis.entries.enumerated() where entry.role == .jwks {
            guard let set = try? JWKSet.parse(exchanges[index].responseBody) else { continue }
            for key in set.keys where (try? key.thumbprint()).map({ seen.insert($0).inserted }) ?? true {
                keys.append(key)
            }
        }
        var nonceOfCode: [String: String] = [:]
        for flow in analysis.signIns {
            if let code = flow.callback?.code, let nonce = flow.nonce { nonceOfCode[code] = nonce }
        }
        let issuer = analysis.issuer ?? ""
        var findings: [Int: String] = [:]
        var signedIn: (iss: String?, sub: String?)?
        for index in analysis.timeline where analysis.entries[index].role == .token {
            let exchange = exchanges[index]
            guard let body = try? JSONValue.parseObject(exchange.responseBody), exchange.status == 200,
                let idToken = body["id_token"]?.stringValue
            else { continue }
            let form = CaptureAnalysis.form(exchange)
            let clientID =
                form["client_id"] ?? CaptureAnalysis.basicClientID(exchange) ?? analysis.clientIDs.first ?? ""
            let code = form["grant_type"] == GrantType.authorizationCode ? form["code"] : nil
            let finding = check(
                idToken, keys: keys, issuer: issuer, clientID: clientID,
                nonce: code.flatMap { nonceOfCode[$0] }, now: receivedAt(exchange),
                accessToken: body["access_token"]?.stringValue, code: code,
                signedIn: form["grant_type"] == GrantType.refreshToken ? signedIn : nil)
            findings[index] = finding
            if form["grant_type"] != GrantType.refreshToken,
                let claims = try? JWT.decodeUnverified(idToken).claims
            {
                signedIn = (claims["iss"]?.stringValue, claims["sub"]?.stringValue)
            }
        }
        return findings
    }

    /// The second in which the answer arrived: the issuer stamped `iat` while the request was in
    /// flight, so the second the request started in can precede it (a HAR's `time` is the whole
    /// exchange's duration, HAR 1.2 §entries). Whole seconds, as `iat` and `exp` are.
    static func receivedAt(_ exchange: RecordedExchange) -> Int64 {
        // A capture's `time` is outside input: an absurd one counts as none.
        let duration = exchange.timeMilliseconds
        let milliseconds =
            duration.isFinite && duration > 0 && duration < 86_400_000 ? Int64(duration.rounded(.up)) : 0
        let (end, overflow) = exchange.startedAtMilliseconds.addingReportingOverflow(milliseconds)
        let received = overflow ? exchange.startedAtMilliseconds : end
        return received / 1000
    }

    private static func check(
        _ token: String, keys: [JWK], issuer: String, clientID: String, nonce: String?, now: Int64,
        accessToken: String?, code: String?, signedIn: (iss: String?, sub: String?)?
    ) -> String {
        guard !keys.isEmpty else { return "not checked: the capture holds no key set" }
        let jws: JWS
        do {
            jws = try JWS.parse(token)
        } catch {
            return "does not verify: \(error.message)"
        }
        do throws(JOSEError) {
            // By `kid`, or, without one, by the recorded key that verifies it.
            if jws.header.keyID != nil {
                try jws.verify(
                    with: JWKCollection(keys: keys), allowedAlgorithms: IDTokenVerifier.allowedAlgorithms)
            } else {
                let algorithm = try jws.header.validated()
                guard IDTokenVerifier.allowedAlgorithms.contains(algorithm) else {
                    throw JOSEError(.algorithmNotAllowed, "alg \(algorithm) is not allowed for an ID token")
                }
                guard keys.contains(where: { (try? jws.verify(with: $0)) != nil }) else {
                    throw JOSEError(.badSignature, "no recorded key verifies the \(algorithm) signature")
                }
            }
            let claims = try JWTClaims(json: try jws.payloadObject())
            try claims.validate(
                .idToken(issuer: issuer, clientID: clientID, nonce: nonce, now: now, leeway: 0))
            let algorithm = jws.header.members["alg"]?.stringValue ?? ""
            var checked = ["signature", "iss", "aud", "exp and iat at the recorded time"]
            if nonce != nil { checked.append("nonce") }
            let other = claims.json.objectValue ?? [:]
            for (claim, value) in [(HashClaim.accessToken, accessToken), (HashClaim.code, code)] {
                guard let expected = other[claim.rawValue]?.stringValue else { continue }
                guard let value else { continue }
                guard (try? HashClaim.leftHalfHash(of: value, algorithm: algorithm)) == expected else {
                    return "does not verify: \(claim.rawValue) does not match the "
                        + (claim == .accessToken ? "access token beside it" : "code exchanged")
                }
                checked.append(claim.rawValue)
            }
            if let signedIn {
                if let iss = signedIn.iss, claims.issuer != iss {
                    return
                        "does not verify: a refreshed ID token's iss differs from the sign-in's (Core §12.2)"
                }
                if let sub = signedIn.sub, claims.subject != sub {
                    return
                        "does not verify: a refreshed ID token's sub differs from the sign-in's (Core §12.2)"
                }
            }
            return "verifies (" + checked.joined(separator: ", ") + ")"
        } catch {
            return "does not verify: \(error.message)"
        }
    }
}
