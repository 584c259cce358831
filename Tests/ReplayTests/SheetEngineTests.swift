import HTTPCore
import Recordings
import Scenario
import ScenarioRunner
import TestSupport
import Testing

@testable import Replay

/// Replay and import run a capture's sheets in the engine that recorded them, and read a login
/// page that was a script shell as the embedded issuer's `pages: javascript`.
@Suite struct SheetEngineTests {
    /// The embedded issuer's script pages in the lite engine: the sheet stops at the shell.
    static let liteOnScriptPages = """
        name: lite on script pages
        issuer:
          tenant: {pages: javascript}
        steps:
          - launch
          - signIn: {error: web_session_failed}
        """

    /// A capture of `liteOnScriptPages` whose browser entries say `engine` (nil: none, as
    /// another tool's capture).
    static func capture(engine: BrowserEngine?) async throws -> HARCapture {
        var capture = try await ReplayCaptures.recorded(liteOnScriptPages)
        for index in capture.exchanges.indices where capture.exchanges[index].source == .browser {
            capture.exchanges[index].engine = engine
        }
        return capture
    }

    @Test("a capture whose sheets ran in WebKit replays them in WebKit; one naming no engine in lite")
    func engineOfTheReplay() async throws {
        let recorded = try await ReplayCaptures.recorded(Self.liteOnScriptPages)
        #expect(recorded.exchanges.contains { $0.engine == .lite }, "signinsim writes _engine")
        let recordedNeeds = CaptureReplay.needsWebKit(recorded)
        #expect(!recordedNeeds)

        let webkit = try await Self.capture(engine: .webkit)
        let webkitNeeds = CaptureReplay.needsWebKit(webkit)
        #expect(webkitNeeds)
        var story = try ReplayStory.read(
            CaptureAnalysis(webkit), file: "webkit.har", profile: nil, inferring: false)
        story.runSheets(CaptureAnalysis(webkit), requested: nil)
        #expect(story.scenario.apps.map(\.browser) == [.webkit])
        #expect(story.sheetEngineSource == .recordedEntries)
        // Without an engine the replay cannot show the sheet: it says so rather than use lite.
        do {
            _ = try await CaptureReplay.run(webkit)
            Issue.record("the replay ran without the engine its sheets need")
        } catch {
            #expect(error.description.contains("no WebKit engine"), "\(error.description)")
        }

        var forced = CaptureReplay.Options()
        forced.browsers = BrowserSelection(requested: .lite)
        let forcedNeeds = CaptureReplay.needsWebKit(webkit, options: forced)
        #expect(!forcedNeeds)
        let report = try await CaptureReplay.run(webkit, options: forced)
        #expect(report.matches, "\(report.text)")
        #expect(report.notes.contains("the sheets run in lite, as --browser asks"))

        let foreign = try await Self.capture(engine: nil)
        let foreignNeeds = CaptureReplay.needsWebKit(foreign)
        #expect(!foreignNeeds)
        var inferred = try ReplayStory.read(
            CaptureAnalysis(foreign), file: "foreign.har", profile: nil, inferring: true)
        inferred.runSheets(CaptureAnalysis(foreign), requested: nil)
        #expect(inferred.scenario.apps.allSatisfy { $0.browser == nil })
        #expect(inferred.sheetEngineSource == nil)
    }

    /// The lite capture that stopped at the shell derives a lite scenario against script pages,
    /// whose sign-in fails as recorded; against the default (HTML) pages it would sign in.
    @Test("a lite capture that stopped at a script shell derives browser: lite and pages: javascript")
    func liteShellDerivation() async throws {
        let capture = try await ReplayCaptures.recorded(Self.liteOnScriptPages)
        var options = ScenarioDerivation.Options()
        options.file = "lite-shell.har"
        let derived = try await ScenarioDerivation.derive(capture, options: options)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
        #expect(derived.scenario.browser == .lite)
        #expect(derived.yaml.contains("pages: javascript"), "\(derived.yaml)")
        #expect(derived.scenario.description.contains("the login page is a script shell"))
        #expect(derived.scenario.description.contains("The sheets run in lite"))
    }

    @Test("a capture of HTML login pages derives no pages setting")
    func htmlPagesDerivation() async throws {
        let capture = try await ReplayCaptures.recorded("name: html pages\nsteps: [launch, signIn]\n")
        var options = ScenarioDerivation.Options()
        options.file = "html.har"
        options.checks = false
        let derived = try await ScenarioDerivation.derive(capture, options: options)
        #expect(!derived.yaml.contains("pages:"), "\(derived.yaml)")
    }

    /// The script login refuses a wrong password only by script (a JSON answer): WebKit reads
    /// it. The capture replays in WebKit as recorded, diverges when forced into lite, and
    /// derives a WebKit scenario against script pages with no user the password would fit.
    @Test("a WebKit capture of script pages replays in WebKit and derives browser: webkit")
    func webKitCapture() async throws {
        let browsers = BrowserSelection(webKit: try TestWebKit.engine())
        let capture = try await ReplayCaptures.recorded(
            """
            name: webkit wrong password
            browser: webkit
            issuer:
              tenant: {pages: javascript}
            steps:
              - launch
              - signIn: {password: not-the-password, error: web_session_failed}
            """, browsers: browsers)
        #expect(CaptureAnalysis(capture).sheetEngine() == .webkit)
        let needs = CaptureReplay.needsWebKit(capture)
        #expect(needs)

        var options = CaptureReplay.Options()
        options.browsers = browsers
        let report = try await CaptureReplay.run(capture, options: options)
        #expect(report.matches, "\(report.text)")
        #expect(
            report.notes.contains(
                "the sheets run in webkit, the engine the capture's browser entries name (_engine)"))

        options.browsers.requested = .lite
        let lite = try await CaptureReplay.run(capture, options: options)
        #expect(!lite.matches, "lite cannot post the script's login: \(lite.text)")

        var derivation = ScenarioDerivation.Options()
        derivation.file = "webkit.har"
        derivation.browsers = browsers
        let derived = try await ScenarioDerivation.derive(capture, options: derivation)
        #expect(derived.passed == true, "\(derived.yaml)\(derived.notExpressed)")
        #expect(derived.notExpressed.isEmpty, "\(derived.notExpressed)")
        #expect(derived.scenario.browser == .webkit)
        #expect(derived.yaml.contains("pages: javascript"), "\(derived.yaml)")
    }
}
