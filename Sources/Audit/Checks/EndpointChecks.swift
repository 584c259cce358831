import HTTPCore
import JOSE
import JSON
import OAuthCore

extension AuditRun {
    func userInfoChecks() async throws {
        try await check(.userInfoSubject) {
            guard let endpoint = metadata?.userInfoEndpoint else {
                return .skip("discovery has no userinfo_endpoint")
            }
            let flow = try await mainFlow()
            guard let accessToken = flow.answer.accessToken, let idToken = flow.answer.idToken,
                let sub = (try? JWS.parse(idToken).payloadObject())?["sub"]?.stringValue
            else { return .skip("the first flow has no access token or no ID token sub") }
            let response = try await probe.get(
                endpoint, headers: ["Authorization": "Bearer \(accessToken)"])
            guard response.status == 200 else { return .broken("UserInfo answered \(response.status)") }
            let claims = (try? response.jsonBody())?.objectValue
            if claims == nil, let body = response.bodyText, (try? JWS.parse(body)) != nil {
                return .skip("UserInfo answered a signed JWT, which this check does not read")
            }
            let got = claims?["sub"]?.stringValue
            return got == sub
                ? .pass("UserInfo's sub is the ID token's")
                : .broken("UserInfo's sub is \(got ?? "absent"), not the ID token's")
        }
        try await check(.userInfoChallenge) {
            guard let endpoint = metadata?.userInfoEndpoint else {
                return .skip("discovery has no userinfo_endpoint")
            }
            let response = try await probe.get(endpoint)
            guard response.status == 401 else {
                return .broken("UserInfo without a token answered \(response.status), not 401")
            }
            guard let challenge = response.headers["WWW-Authenticate"] else {
                return .broken("401 without WWW-Authenticate (RFC 6750 §3: MUST)")
            }
            let scheme = challenge.split(separator: " ").first.map(String.init)?.lowercased() ?? ""
            return ["bearer", "dpop"].contains(scheme)
                ? .pass("401 with WWW-Authenticate: \(challenge.prefix(80))")
                : .broken("401, but the challenge is \(challenge.prefix(80)), not Bearer")
        }
    }

    func revocationChecks() async throws {
        guard let endpoint = metadata?.revocationEndpoint else {
            skipAll([.revocationRevokes, .revocationUnknownToken], "discovery has no revocation_endpoint")
            return
        }
        func revoke(_ token: String, hint: String?) async throws -> HTTPResponse {
            var form = FormParameters()
            form.append(OAuthParameter.token, token)
            if let hint { form.append(OAuthParameter.tokenTypeHint, hint) }
            var headers = HTTPHeaders()
            try probe.authenticate(
                target.client, method: method(for: target.client), tokenEndpoint: tokenEndpoint, form: &form,
                headers: &headers)
            return try await probe.send(HTTPRequest.form(url: endpoint, parameters: form, headers: headers))
        }
        try await check(.revocationRevokes) {
            let flow = try await codeFlow()
            guard let token = flow.answer.refreshToken else {
                return .skip("the code flow issued no refresh token")
            }
            let response = try await revoke(token, hint: OAuthParameter.refreshToken)
            guard response.status == 200 else {
                return .broken("the revocation answered \(response.status), not 200")
            }
            let after = try await refresh(token)
            return after.succeeded
                ? .broken("the revocation answered 200, but the refresh token still refreshed")
                : .pass("revoked with 200; the refresh token then got \(after.described)")
        }
        try await check(.revocationUnknownToken) {
            let response = try await revoke("signinsim-audit-" + probe.randomString(), hint: nil)
            return response.status == 200
                ? .pass("a token the issuer never issued was answered 200")
                : .broken(
                    "a token the issuer never issued was answered \(response.status) (RFC 7009 §2.2: 200)")
        }
    }
}
