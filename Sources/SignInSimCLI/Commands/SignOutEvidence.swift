import JSON
import Simulator

/// What `sign-in --sign-out` says of the issuer's session, and on what evidence.
///
/// The SDK knows only what came back to the app: the post-logout redirect with the `state` it
/// sent (OpenID Connect RP-Initiated Logout 1.0 §3), an acknowledgement. The simulator then
/// asks the issuer itself (``SignOutCheck``): "ended at the issuer" and
/// `signed_out_at_issuer: true` are printed only when a check proved it, and the evidence says
/// which.
struct SignOutEvidence {
    /// The sign-out failed, or the issuer's session demonstrably goes on after it answered as
    /// if it ended it.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    var summary: [String: JSONValue]
    var refusal: Refusal?

    /// Signs `app` out through its SDK, checks the issuer afterwards and weighs the evidence.
    static func signOut(_ app: SimulatedApp) async throws -> SignOutEvidence {
        let record = try await app.signOut(callEndSession: true)
        return SignOutEvidence(await app.checkSignOut(record))
    }

    init(_ check: SignOutCheck) {
        summary = [
            "signed_out_at_issuer": .bool(check.signedOutAtIssuer),
            "sign_out": .string(check.statement),
            "sign_out_status": .string(check.verdict.rawValue),
            "sign_out_evidence": .array(check.evidence.map(JSONValue.string)),
            "sign_out_check_requests": .int(Int64(check.requests)),
        ]
        switch check.verdict {
        case .failed:
            refusal = Refusal(description: "the issuer's end-session \(check.statement)")
        case .notEnded:
            refusal = Refusal(description: "the sign-out was \(check.statement)")
        case .verified, .acknowledged, .unconfirmed, .local:
            refusal = nil
        }
    }
}
