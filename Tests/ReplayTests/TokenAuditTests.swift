import Scenario
import Testing

@testable import Replay

/// The moment a recorded ID token is judged at: the end of its exchange, as the issuer stamped
/// `iat` while the request was in flight.
@Suite struct TokenAuditTests {
    private func exchange(startedAt: Int64, taking milliseconds: Double) -> RecordedExchange {
        RecordedExchange(
            source: .app, startedAtMilliseconds: startedAt, method: "POST", url: "http://127.0.0.1/token",
            timeMilliseconds: milliseconds)
    }

    @Test func aTokenIssuedInTheSecondAfterTheRequestStartedIsNotInTheFuture() {
        // Sent at …961.900, answered 150 ms later, stamped iat …962 by the issuer.
        #expect(TokenAudit.receivedAt(exchange(startedAt: 1_796_469_961_900, taking: 150)) == 1_796_469_962)
    }

    @Test func theSecondIsTheOneTheAnswerArrivedIn() {
        #expect(TokenAudit.receivedAt(exchange(startedAt: 999_000, taking: 999)) == 999)
        #expect(TokenAudit.receivedAt(exchange(startedAt: 999_999, taking: 0.4)) == 1000)
        #expect(TokenAudit.receivedAt(exchange(startedAt: 1_000_000, taking: 0)) == 1000)
    }

    @Test(arguments: [-5, .nan, .infinity, 1e300, 86_400_000])
    func anAbsurdDurationCountsAsNone(milliseconds: Double) {
        #expect(TokenAudit.receivedAt(exchange(startedAt: 2_000_500, taking: milliseconds)) == 2000)
    }

    @Test func theLatestStartDoesNotOverflow() {
        #expect(TokenAudit.receivedAt(exchange(startedAt: .max, taking: 10)) == Int64.max / 1000)
    }
}
