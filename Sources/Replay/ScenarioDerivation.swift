import HTTPCore
import JOSE
import JSON
public import Recordings
import Scenario

/// Derives a scenario from a capture (`signinsim import-har`): the flow's steps from each
/// request's role in the issuer's discovery document, time gaps as `advance`, bursts of
/// refreshes presenting one token as `parallel` (overlapped by an `http-delay` fault), errors
/// the issuer answered as `error:`. The scenario runs against the embedded issuer and replays
/// the capture's shape there.
public enum ScenarioDerivation {
    /// YAML text of the scenario; `profile` is the SDK profile it runs with.
    public static func yaml(from capture: HARCapture, name: String, profile: String = "default")
        throws(CaptureReplay.Failure) -> String
    {
        let exchanges = capture.exchanges
        guard
            let discoveryIndex = exchanges.firstIndex(where: {
                URLParts.path(of: $0.url).hasSuffix("/.well-known/openid-configuration") && $0.status == 200
            }),
            let document = try? JSONValue.parseObject(exchanges[discoveryIndex].responseBody),
            let tokenEndpoint = document["token_endpoint"]?.stringValue
        else {
            throw .init(description: "the capture has no answered discovery request with a token_endpoint")
        }
        let tokenPath = URLParts.path(of: tokenEndpoint)
        let userinfoPath = document["userinfo_endpoint"]?.stringValue.map(URLParts.path(of:))
        let endSessionPath = document["end_session_endpoint"]?.stringValue.map(URLParts.path(of:))
        func parameters(_ exchange: RecordedExchange) -> FormParameters {
            (try? FormURLEncoding.decode(String(decoding: exchange.requestBody, as: UTF8.self))) ?? [:]
        }
        func oauthError(_ exchange: RecordedExchange) -> String? {
            guard let status = exchange.status, status >= 400 else { return nil }
            return (try? JSONValue.parseObject(exchange.responseBody))?["error"]?.stringValue
                ?? "http_\(status)"
        }

        var steps: [String] = ["  - launch"]
        var appleEmail: String?
        var clock: Int64 = exchanges[discoveryIndex].startedAtMilliseconds
        var burst: (token: String, end: Int64, errors: [String?])?
        func advance(to start: Int64) {
            let seconds = (start - clock) / 1000
            if seconds >= 1 {
                steps.append("  - advance: \(seconds)s")
                clock += seconds * 1000
            }
        }
        func flushBurst() {
            guard let pending = burst else { return }
            burst = nil
            if pending.errors.count == 1 {
                let suffix = pending.errors[0] == "invalid_grant" ? ", error: session_expired" : ""
                steps.append("  - getAccessToken: {force: true\(suffix)}")
            } else {
                // The calls overlapped in the field; here they overlap by construction, not by
                // luck: the first refresh to reach the issuer is held there for a second, so the
                // others leave with the same token before any answer is back.
                steps.append("  - issuer: {fault: http-delay, path: /oauth/token, count: 1, delay_ms: 1000}")
                steps.append("  - parallel:")
                for _ in pending.errors {
                    steps.append("      - getAccessToken: {force: true, error: [session_expired, none]}")
                }
                if pending.errors.contains("invalid_grant") {
                    // What the capture shows: the issuer saw a replay and revoked the family.
                    steps.append("  - expect: {issuer_refresh_tokens: revoked}")
                }
            }
        }
        for (index, exchange) in exchanges.enumerated() where index > discoveryIndex {
            let path = URLParts.path(of: exchange.url)
            let start = exchange.startedAtMilliseconds
            if path == tokenPath {
                let form = parameters(exchange)
                let grant = form["grant_type"] ?? ""
                if grant == "refresh_token", let token = form["refresh_token"] {
                    if var pending = burst, pending.token == token, start < pending.end {
                        pending.errors.append(oauthError(exchange))
                        pending.end = max(pending.end, start + Int64(exchange.timeMilliseconds.rounded(.up)))
                        burst = pending
                        continue
                    }
                    flushBurst()
                    advance(to: start)
                    burst = (
                        token, start + Int64(exchange.timeMilliseconds.rounded(.up)), [oauthError(exchange)]
                    )
                    continue
                }
                flushBurst()
                advance(to: start)
                if grant == "authorization_code" {
                    steps.append(
                        oauthError(exchange) == nil
                            ? "  - signIn" : "  - signIn: {error: token_request_failed}")
                } else if grant.hasSuffix("token-exchange") {
                    if let body = try? JSONValue.parseObject(exchange.responseBody),
                        let idToken = body["id_token"]?.stringValue,
                        let claims = try? JWT.decodeUnverified(idToken).claims
                    {
                        appleEmail = appleEmail ?? claims["email"]?.stringValue
                    }
                    steps.append(
                        oauthError(exchange) == nil
                            ? "  - signInWithApple" : "  - signInWithApple: {error: token_request_failed}")
                }
            } else if path == userinfoPath {
                flushBurst()
                advance(to: start)
                steps.append("  - userInfo")
            } else if path == endSessionPath {
                flushBurst()
                advance(to: start)
                steps.append("  - signOut")
            }
        }
        flushBurst()

        var lines = [
            "name: \(yamlString(name))",
            "description: >",
            "  Derived by signinsim import-har from a capture of \(exchanges.count) exchanges"
                + (capture.creator.map { " (\($0))" } ?? "") + ":",
            "  the app's calls in recorded order, time gaps as advance, bursts of refreshes presenting",
            "  one token as parallel (the first held at the issuer for a second, so that they overlap).",
            "  Runs against the embedded issuer; the web sign-in uses its default user.",
            "tags: [imported]",
            "profile: \(yamlString(profile))",
        ]
        if let appleEmail {
            lines.append("device: {apple_account: {email: \(yamlString(appleEmail))}}")
        }
        lines.append("steps:")
        return (lines + steps).joined(separator: "\n") + "\n"
    }

    /// A YAML double-quoted scalar.
    static func yamlString(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default:
                if scalar.value < 0x20 {
                    escaped += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return "\"" + escaped + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
