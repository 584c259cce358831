import HTTPCore
import Issuer
import JOSE
import JSON
import Scenario
import SignInSDK
import Simulator

/// What an `expect` item came to, when it did not fail.
enum ExpectationResult: Equatable {
    case passed
    /// Passed, on evidence the report names.
    case passedOn(evidence: String)
    /// The target cannot make this check, for this reason.
    case notChecked(String)
}

/// Checks `expect` items against the world. A failed check throws `StepStop` with what was
/// expected and what was found; a check the target cannot make returns the reason.
struct ExpectationChecker {
    let world: ScenarioWorld
    let lastError: SignInError.Code?
    /// Each app's last sign-out, by bundle id.
    var signOuts: [String: SignOutRecord] = [:]

    func check(_ expectation: Expectation, step: Step) async throws -> ExpectationResult {
        func fail(_ message: String, expected: String, actual: String) -> StepStop {
            let location = expectation.location
            return StepStop(
                failure: StepFailure(
                    step: step.name, location: location, message: message, expected: expected, actual: actual)
            )
        }
        switch expectation.kind {
        case .session(let present, let app):
            let session = try await storedSession(app, step: step, location: expectation.location)
            guard (session != nil) == present else {
                throw fail(
                    "expected the session to be \(present ? "present" : "absent")",
                    expected: present ? "present" : "absent",
                    actual: session.map(describe) ?? "absent")
            }
        case .refreshToken(let present, let app):
            let session = try await storedSession(app, step: step, location: expectation.location)
            let actual = session?.refreshToken != nil
            guard actual == present else {
                throw fail(
                    "expected a refresh token to be \(present ? "held" : "absent")",
                    expected: present ? "present" : "absent",
                    actual: session == nil ? "no session" : (actual ? "present" : "absent"))
            }
        case .claims(let matches, let app):
            guard let session = try await storedSession(app, step: step, location: expectation.location)
            else {
                throw fail(
                    "expected ID token claims, but no session is stored", expected: "a session",
                    actual: "absent")
            }
            let claims = session.claims.json.objectValue ?? [:]
            for (name, match) in matches.sorted(by: { $0.key < $1.key }) {
                if let problem = Self.mismatch(claims[name], match) {
                    throw fail(
                        "claim \(name): \(problem)", expected: "\(name): \(match)",
                        actual: Self.describe(claims[name]))
                }
            }
        case .tokenType(let type, let app):
            guard let session = try await storedSession(app, step: step, location: expectation.location)
            else {
                throw fail(
                    "expected a token type, but no session is stored", expected: type, actual: "no session")
            }
            guard session.tokenType.lowercased() == type.lowercased() else {
                throw fail("the stored token type", expected: type, actual: session.tokenType)
            }
        case .scopes(let scopes, let app):
            guard let session = try await storedSession(app, step: step, location: expectation.location)
            else {
                throw fail(
                    "expected granted scopes, but no session is stored", expected: "a session",
                    actual: "absent")
            }
            let granted = Set((session.scope ?? "").split(separator: " ").map(String.init))
            let missing = scopes.filter { !granted.contains($0) }
            guard missing.isEmpty else {
                throw fail(
                    "scopes not granted: \(missing.joined(separator: " "))",
                    expected: scopes.joined(separator: " "),
                    actual: session.scope ?? "(none)")
            }
        case .lastError(let code):
            guard lastError == code else {
                throw fail(
                    "the last SDK call's error", expected: code?.rawValue ?? "no error",
                    actual: lastError?.rawValue ?? "no error"
                )
            }
        case .requests(var requests):
            if let endpoint = requests.endpoint {
                requests.path = try await endpointPath(endpoint, step: step, location: expectation.location)
            }
            try checkRequests(requests, fail: fail)
        case .keychainItems(let count):
            let actual = world.phone.device.keychain.count
            guard actual == count else {
                throw fail("keychain items on the device", expected: "\(count)", actual: "\(actual)")
            }
        case .browserCookies(let count, let name):
            let issuerHost = URLParts(world.issuerURL)?.host ?? ""
            let engine = world.apps[world.firstApp]?.configuration.browser ?? .lite
            var cookies = await world.phone.browserCookies(engine).filter {
                $0.domain.trimmingPrefix(".").lowercased() == issuerHost
            }
            if let name { cookies = cookies.filter { $0.name == name } }
            let actual = cookies.count
            if let count {
                guard actual == count else {
                    throw fail(
                        "cookies for the issuer in the device browser's jar\(name.map { " named \($0)" } ?? "")",
                        expected: "\(count)",
                        actual: "\(actual): \(cookies.map(\.name).joined(separator: ", "))")
                }
            } else if actual == 0 {
                throw fail(
                    "no cookie\(name.map { " \($0)" } ?? "") for the issuer in the device browser's jar",
                    expected: "at least 1", actual: "0")
            }
        case .issuerUser(let email, let fields):
            guard let issuer = world.world.identity?.issuer else {
                return .notChecked("issuer_user needs the embedded issuer")
            }
            // The user's fields as the admin API lists them, by their claim names.
            guard let account = issuer.user(email: email), let user = Issuer.userJSON(account).objectValue
            else {
                throw fail("no user \(email) at the issuer", expected: email, actual: "no such user")
            }
            for (name, match) in fields.sorted(by: { $0.key < $1.key }) {
                if let problem = Self.mismatch(user[name], match) {
                    throw fail(
                        "user \(email), \(name): \(problem)", expected: "\(name): \(match)",
                        actual: Self.describe(user[name]))
                }
            }
        case .issuerRefreshTokens(let verdict):
            guard let issuer = world.world.identity?.issuer else {
                return .notChecked("issuer_refresh_tokens needs the embedded issuer")
            }
            let tokens = receivedRefreshTokens()
            guard let newest = tokens.last else {
                throw fail(
                    "no refresh token was received", expected: verdict.rawValue, actual: "none received")
            }
            let statuses = tokens.map { issuer.refreshTokenStatus($0) }
            let described = statuses.map(\.rawValue).joined(separator: ", ")
            switch verdict {
            case .revoked:
                guard statuses.allSatisfy({ $0 == .revoked || $0 == .unknown }), statuses.contains(.revoked)
                else {
                    throw fail(
                        "the refresh tokens the device received, at the issuer", expected: "all revoked",
                        actual: described)
                }
            case .active:
                let standing = issuer.refreshTokenStatus(newest)
                guard standing == .active else {
                    throw fail(
                        "the newest refresh token the device received, at the issuer", expected: "active",
                        actual: standing.rawValue)
                }
            }
        case .appleCredential(let state, let app):
            guard let apple = world.world.identity?.apple else {
                return .notChecked("apple_credential needs the embedded Apple")
            }
            guard let account = world.phone.appleAccount else {
                throw fail(
                    "no Apple ID is signed in on the phone", expected: state.rawValue, actual: "no Apple ID")
            }
            let actual = apple.credentialState(email: account.email, bundleID: world.app(app).bundleID)
                .rawValue
            guard actual == state.rawValue else {
                throw fail(
                    "Apple's credential state for \(account.email)", expected: state.rawValue, actual: actual)
            }
        case .appPhase(let phase, let app):
            let actual = world.app(app).state.phase
            guard actual == phase else {
                throw fail("the app's phase", expected: phase.rawValue, actual: actual.rawValue)
            }
        case .signedOutAtIssuer(let ended, let app):
            let target = world.app(app)
            guard let record = signOuts[target.bundleID] else {
                throw fail(
                    "signed_out_at_issuer needs a signOut before it", expected: "\(ended)",
                    actual: "no sign-out")
            }
            let check = await target.checkSignOut(record)
            guard check.signedOutAtIssuer == ended else {
                throw fail(
                    "whether the issuer's session ended at the last sign-out", expected: "\(ended)",
                    actual: check.statement)
            }
            return .passedOn(evidence: "sign-out \(check.statement)")
        case .loginForms(let expected, let app):
            let actual = world.app(app).loginFormsSubmitted
            guard actual == expected else {
                throw fail(
                    "login forms submitted in the app's web sheets", expected: "\(expected)",
                    actual: "\(actual)")
            }
        case .sheet(let expected, let app):
            let actual: String =
                switch world.app(app).lastSheetResult {
                case nil: "no sheet"
                case .success?: SheetEnding.callback.name
                case .failure(let error)?: "\(error.code.rawValue) (\(error.message))"
                }
            let matches: Bool =
                switch (expected, world.app(app).lastSheetResult) {
                case (.callback, .success?): true
                case (.failure(let code), .failure(let error)?): error.code == code
                default: false
                }
            guard matches else {
                throw fail("how the app's last web sheet ended", expected: expected.name, actual: actual)
            }
        }
        return .passed
    }

    private func storedSession(_ app: String?, step: Step, location: SourceLocation) async throws -> Session?
    {
        let target = world.app(app)
        do {
            return try await target.perform { try await $0.storedSession() }
        } catch {
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: location,
                    message:
                        "cannot read the session of \(target.bundleID): \(error.code.rawValue): \(error.message)"
                ))
        }
    }

    /// The path of an endpoint named by its role, from the first app's discovered metadata.
    private func endpointPath(_ role: EndpointRole, step: Step, location: SourceLocation) async throws
        -> String
    {
        let metadata: ProviderMetadata
        do {
            metadata = try await world.app(nil).perform { try await $0.providerMetadata() }
        } catch {
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: location,
                    message:
                        "cannot find the \(role.rawValue) endpoint: \(error.code.rawValue): \(error.message)")
            )
        }
        let url: String? =
            switch role {
            case .discovery: metadata.issuer.trimmingSuffix("/") + "/.well-known/openid-configuration"
            case .jwks: metadata.jwksURI
            case .authorization: metadata.authorizationEndpoint
            case .token: metadata.tokenEndpoint
            case .userinfo: metadata.userinfoEndpoint
            case .end_session: metadata.endSessionEndpoint
            case .revocation: metadata.revocationEndpoint
            }
        guard let url else {
            throw StepStop(
                failure: StepFailure(
                    step: step.name, location: location,
                    message: "the issuer advertises no \(role.rawValue) endpoint")
            )
        }
        return URLParts.path(of: url)
    }

    /// Every refresh token in the token responses the device received, oldest first.
    private func receivedRefreshTokens() -> [String] {
        world.phone.device.network.log.compactMap { exchange in
            guard case .success(let response) = exchange.outcome, response.status == 200,
                let body = try? JSONValue.parse(response.body)
            else { return nil }
            return body["refresh_token"]?.stringValue
        }
    }

    private func describe(_ session: Session) -> String {
        "present (sub \(session.subject ?? "?"), refresh token \(session.refreshToken == nil ? "absent" : "present"))"
    }

    private func checkRequests(
        _ expectation: RequestExpectation, fail: (String, String, String) -> StepStop
    ) throws {
        let log = world.phone.device.network.log.filter { exchange in
            if let path = expectation.path, exchange.request.path != path { return false }
            if let method = expectation.method, exchange.request.method.rawValue != method { return false }
            return true
        }
        let matching = log.filter { exchange in
            let parameters = Self.parameters(of: exchange.request)
            return expectation.parameters.allSatisfy { name, match in
                Self.mismatch(parameters[name].map(JSONValue.string), match) == nil
            }
                && expectation.headers.allSatisfy { name, match in
                    Self.mismatch(exchange.request.headers[name].map(JSONValue.string), match) == nil
                }
        }
        let what = [expectation.method, expectation.path].compactMap { $0 }.joined(separator: " ")
        let subject = what.isEmpty ? "requests" : "\(what) requests"
        let condition =
            expectation.parameters.isEmpty
            ? ""
            : " with "
                + expectation.parameters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                .joined(separator: ", ")
        if let count = expectation.count {
            guard matching.count == count else {
                throw fail(
                    "\(subject)\(condition)", "\(count)",
                    "\(matching.count) (of \(log.count) \(subject))")
            }
        } else {
            let atLeast = expectation.atLeast ?? 1
            guard matching.count >= atLeast else {
                throw fail(
                    "\(subject)\(condition)", "at least \(atLeast)",
                    "\(matching.count) (of \(log.count) \(subject))")
            }
        }
    }

    /// Query and form parameters (the last value of a repeated name).
    static func parameters(of request: HTTPRequest) -> [String: String] {
        var result: [String: String] = [:]
        if let pairs = try? request.queryParameters() {
            for pair in pairs { result[pair.name] = pair.value }
        }
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix(MediaType.formURLEncoded),
            let text = String(validating: request.body, as: UTF8.self),
            let pairs = try? FormURLEncoding.decode(text)
        {
            for pair in pairs { result[pair.name] = pair.value }
        }
        return result
    }

    /// Why `value` does not match, or nil when it does.
    static func mismatch(_ value: JSONValue?, _ match: ClaimMatch) -> String? {
        switch match {
        case .present: return value == nil || value == .null ? "absent, expected present" : nil
        case .absent: return value == nil || value == .null ? nil : "present, expected absent"
        case .equals(let expected):
            guard let value else { return "absent" }
            if value == expected { return nil }
            // A number or boolean written in YAML matches the same text in a form parameter.
            if case .string(let text) = value, text == expected.scalarText { return nil }
            if case .array(let items) = value, items.contains(expected) { return nil }
            return "is \(describe(value))"
        }
    }

    static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        return String(decoding: value.serialized(), as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

extension JSONValue {
    /// The text of a scalar as it would appear in a form parameter.
    fileprivate var scalarText: String? {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .double(let value): String(value)
        default: nil
        }
    }
}
