import HTTPCore
import JOSE

extension CaptureAnalysis {
    /// Why the app never redeemed the code a callback brought back, as far as the capture shows.
    ///
    /// RFC 6749 §10.12 has the client check that the `state` in the authorization response is
    /// the one it bound to the user agent; a response that fails the check is dropped, so its
    /// code is never exchanged (§4.1.3).
    public enum CallbackRefusal: String, Hashable, Sendable {
        /// The callback's `state` is not the one its sheet's authorization request sent: it was
        /// changed on the way, and the app's state check refused it.
        case stateNotSent = "state-not-sent"
        /// The callback's `state` is the one its sheet sent and nothing else in it gives a reason
        /// (no error, no other issuer's `iss`): the cause is in the app, not in the traffic.
        case causeNotShown = "cause-not-shown"
    }

    /// Why the app refused `flow`'s callback, or nil when it redeemed the code, the callback
    /// carried none, or the callback itself says why (an `error`, no `state`, an `iss` naming
    /// another issuer, RFC 9207 §2.4), which a replayed app meets as the recorded one did.
    public func callbackRefusal(_ flow: SignInFlow) -> CallbackRefusal? {
        guard let callback = flow.callback, callback.code != nil, callback.error == nil,
            flow.codeExchange == nil, callback.state != nil
        else { return nil }
        if !callback.stateMatches { return .stateNotSent }
        let query = (try? URLParts.queryParameters(of: callback.url)) ?? FormParameters()
        if let iss = query["iss"], let issuer,
            JWTValidation.normalizedIssuer(iss) != JWTValidation.normalizedIssuer(issuer)
        {
            return nil
        }
        return .causeNotShown
    }
}
