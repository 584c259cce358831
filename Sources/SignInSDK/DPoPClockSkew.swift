import HTTPCore

/// What a server's refusal of a DPoP proof says about the device's clock.
///
/// A server accepts a proof only within a window around its own time, judged by the proof's
/// `iat` or by a server nonce (RFC 9449 §4.3 check 11, §11.1); a phone whose clock is minutes
/// off stamps every proof outside that window. The refusal (`invalid_dpop_proof`, §5) rarely
/// says so in a form a client can read, but its `Date` header carries the server's time
/// (RFC 9110 §6.6.1: an origin server with a clock must send it on every 4xx). When the
/// refused proof's `iat` is far from that time, the skew is the likely reason.
///
/// Pure: the device's time is a parameter.
struct DPoPClockSkew: Sendable, Hashable {
    /// How far a proof's `iat` may be from the server's `Date` before the SDK takes the skew
    /// for the reason of a refusal, in seconds. `Date` counts whole seconds and the answer
    /// takes time to arrive; 10 s is also the narrowest window among the servers surveyed
    /// (the Curity Identity Server's default `proof-token-clock-skew`).
    static let significant: Int64 = 10

    /// The server's time, read from `Date`.
    let serverTime: Int64
    /// The `Date` header as the server sent it.
    let serverDate: String
    /// The device's time when the answer arrived.
    let deviceTime: Int64

    /// Reads the refusal's `Date`; `nil` when there is none that parses, or when the refused
    /// proof's `iat` was within `significant` seconds of it (the refusal is about something
    /// else).
    init?(refusal: HTTPResponse, proofIssuedAt: Int64, deviceTime: Int64) {
        guard let date = refusal.headers["Date"], let serverTime = HTTPDate.parse(date) else { return nil }
        guard abs(proofIssuedAt - serverTime) > Self.significant else { return nil }
        self.serverTime = serverTime
        self.serverDate = date
        self.deviceTime = deviceTime
    }

    /// Seconds to add to the device's time to get the server's (negative: the device is ahead).
    var offset: Int64 { serverTime - deviceTime }

    /// "540 s ahead of", "75 s behind": the device clock against the server's.
    var comparison: String {
        let ahead = deviceTime - serverTime
        return ahead >= 0 ? "\(ahead) s ahead of" : "\(-ahead) s behind"
    }

    /// The error for an SDK that keeps its own clock: it names the skew, the server's `Date`,
    /// and the server's own words.
    func error(refusal: SignInError, endpoint: String) -> SignInError {
        SignInError(
            .dpopClockSkew,
            "\(endpoint) refused the DPoP proof (\(refusal.oauthError ?? "no error code")); the device clock is "
                + "\(comparison) the server's (Date: \(serverDate.prefix(64))), so the proof's iat is outside the "
                + "server's window (RFC 9449 §11.1). Set the device's clock right, or use the dpop-server-date "
                + "profile to stamp proofs with the server's time. The server said: \(refusal.message.prefix(300))",
            oauthError: refusal.oauthError, status: refusal.status)
    }
}
