import HTTPCore
import JSON
import SignInSDK
import Simulator

/// What `sign-in --sign-out` can say about the issuer's session, and on what evidence.
///
/// The SDK knows only what came back to the app: the post-logout redirect with the `state` it
/// sent (OpenID Connect RP-Initiated Logout 1.0 §3). The phone knows more: whether the issuer's
/// cookies in the browser's jar were cleared or expired by the sign-out. "Signed out at the
/// issuer" is reported only on one of these; anything else is said as it is.
struct SignOutEvidence {
    /// The end-session request failed (an error page, the network, a foreign `state`).
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    var summary: [String: JSONValue]
    var refusal: Refusal?

    /// Signs `app` out through its SDK and weighs the evidence.
    static func signOut(_ app: SimulatedApp) async throws -> SignOutEvidence {
        let host = URLParts(app.configuration.options.issuer)?.host
        let phone = app.phone
        let engine = app.configuration.browser
        func issuerCookies() async -> Set<String> {
            Set(
                await phone.browserCookies(engine).filter {
                    $0.domain.trimmingPrefix(".").lowercased() == host?.lowercased()
                }.map(\.name))
        }
        let before = await issuerCookies()
        let outcome = try await app.perform { try await $0.signOut() }
        let after = await issuerCookies()
        let cookiesCleared = !before.isEmpty && before.isDisjoint(with: after)
        var summary: [String: JSONValue] = [
            "signed_out_at_issuer": .bool(outcome.endedAtIssuer || cookiesCleared)
        ]
        var evidence: [JSONValue] = []
        if outcome.endedAtIssuer { evidence.append("the post-logout redirect came back with the state sent") }
        if cookiesCleared { evidence.append("the issuer's cookies in the browser were cleared") }
        summary["sign_out_evidence"] = .array(evidence)
        var refusal: Refusal?
        switch outcome.endSession {
        case .notRequested:
            summary["sign_out"] = "the issuer advertises no end_session_endpoint: signed out locally"
        case .ended:
            summary["sign_out"] = "ended at the issuer"
        case .unconfirmed(let why):
            summary["sign_out"] = .string("unconfirmed: \(why)")
        case .failed(let why):
            summary["sign_out"] = .string("failed: \(why)")
            refusal = Refusal(description: "the issuer's end-session failed: \(why)")
        }
        return SignOutEvidence(summary: summary, refusal: refusal)
    }
}
