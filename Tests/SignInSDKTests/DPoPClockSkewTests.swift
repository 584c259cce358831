import HTTPCore
import Testing

@testable import SignInSDK

/// Reading a DPoP refusal's `Date` for the device's skew (RFC 9449 §11.1, RFC 9110 §6.6.1).
@Suite struct DPoPClockSkewTests {
    static let serverTime: Int64 = 1_800_000_000

    static func refusal(date: String?) -> HTTPResponse {
        var response = HTTPResponse(status: 400)
        if let date { response.headers.add(name: "Date", value: date) }
        return response
    }

    /// A device 540 s ahead: the offset brings proofs back to the server's time, and the
    /// error names the skew and the server's `Date`.
    @Test func deviceAhead() throws {
        let date = HTTPDate.format(Self.serverTime)
        let skew = try #require(
            DPoPClockSkew(
                refusal: Self.refusal(date: date), proofIssuedAt: Self.serverTime + 540,
                deviceTime: Self.serverTime + 540))
        #expect(skew.offset == -540)
        #expect(skew.comparison == "540 s ahead of")
        let error = skew.error(
            refusal: SignInError(
                .tokenRequestFailed, "the token endpoint answered 400 invalid_dpop_proof: iat is off",
                oauthError: "invalid_dpop_proof", status: 400),
            endpoint: "the token endpoint")
        #expect(error.code == .dpopClockSkew)
        #expect(error.oauthError == "invalid_dpop_proof")
        #expect(error.status == 400)
        #expect(error.message.contains("the device clock is 540 s ahead of the server's (Date: \(date))"))
        #expect(error.message.contains("iat is off"))
    }

    /// A device behind reads as such.
    @Test func deviceBehind() throws {
        let skew = try #require(
            DPoPClockSkew(
                refusal: Self.refusal(date: HTTPDate.format(Self.serverTime)),
                proofIssuedAt: Self.serverTime - 75,
                deviceTime: Self.serverTime - 75))
        #expect(skew.offset == 75)
        #expect(skew.comparison == "75 s behind")
    }

    /// Within 10 s of the server's time the proof's `iat` is not the reason; without a `Date`
    /// that parses there is nothing to compare.
    @Test func noSkewToReport() {
        let date = HTTPDate.format(Self.serverTime)
        #expect(
            DPoPClockSkew(
                refusal: Self.refusal(date: date), proofIssuedAt: Self.serverTime + 10, deviceTime: 0)
                == nil)
        #expect(
            DPoPClockSkew(
                refusal: Self.refusal(date: date), proofIssuedAt: Self.serverTime + 11, deviceTime: 0)
                != nil)
        #expect(DPoPClockSkew(refusal: Self.refusal(date: nil), proofIssuedAt: 0, deviceTime: 0) == nil)
        #expect(
            DPoPClockSkew(refusal: Self.refusal(date: "yesterday"), proofIssuedAt: 0, deviceTime: 0) == nil)
    }
}
