import Scenario
import Testing

@testable import ScenarioReports

/// The diagram's layout, read without a browser.
@Suite struct SequenceDiagramTests {
    @Test func twoArrowsPerExchangeBetweenTheRightLifelines() {
        let diagram = SequenceDiagram(exchanges: Fixtures.exchanges, recording: nil)
        #expect(diagram.lifelines == [.app("app"), .webSession, .keychain, .issuer, .apple])
        let messages = diagram.bands.flatMap(\.messages)
        #expect(messages.count == 2 * Fixtures.exchanges.count)
        let pairs = messages.filter { !$0.isResponse }.map { "\($0.from.title) → \($0.to.title)" }
        #expect(
            pairs == [
                "App app → Issuer", "App app → Issuer", "App app → Issuer", "Issuer → Apple",
                "App app → Issuer",
                "App app → Apple",
            ])
        let answers = messages.filter(\.isResponse)
        #expect(
            answers.map(\.label) == [
                "302", "302", "200", "400 invalid_client", "200",
                "no answer: offline: the device has no network",
            ])
        #expect(answers.map(\.failed) == [false, false, false, true, false, true])
    }

    @Test func aRedirectCarryingAnOAuthErrorIsAFailedAnswer() {
        let denied = RecordedExchange(
            source: .browser, startedAtMilliseconds: 0, method: "POST", url: "http://127.0.0.1/consent",
            status: 302,
            responseHeaders: [HeaderField("Location", "com.example.app:/cb?error=access_denied&state=s")])
        #expect(SequenceDiagram.answer(denied) == ("302 access_denied", true))
    }

    /// The arrows of a failed step are drawn heavier than the rest, beside its marked band.
    @Test func theFailedStepsArrowsAreHighlighted() {
        var diagram = SequenceDiagram(exchanges: Fixtures.exchanges, recording: nil)
        diagram.bands[0].outcome = .failed
        let svg = diagram.svg(id: "d", summary: "")
        #expect(svg.components(separatedBy: "in-failed-step").count - 1 == diagram.messageCount)
        #expect(svg.contains("<g class=\"band failed\">"))
        #expect(svg.contains("✗ Exchanges"))
    }

    @Test func elapsedWorldTime() {
        #expect(SequenceDiagram.elapsed(0) == "+0s")
        #expect(SequenceDiagram.elapsed(3_605_000) == "+1h 0m 5s")
        #expect(SequenceDiagram.elapsed(90_061_000) == "+1d 1h 1m 1s")
    }

    @Test func theSVGHasATextAlternativeAndAFocusableArrowPerMessage() {
        let diagram = SequenceDiagram(exchanges: Fixtures.exchanges, recording: nil)
        let svg = diagram.svg(id: "d", summary: "six exchanges <of> the fixture")
        #expect(svg.contains("<desc id=\"d-desc\">six exchanges &lt;of&gt; the fixture</desc>"))
        #expect(svg.components(separatedBy: "role=\"button\"").count - 1 == diagram.messageCount)
        #expect(svg.components(separatedBy: "class=\"arrow").count - 1 == diagram.messageCount)
        #expect(svg.contains("✗ 400 invalid_client"), "failure is marked, not only coloured")
    }
}
