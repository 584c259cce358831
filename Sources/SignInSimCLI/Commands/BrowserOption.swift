import HTTPCore
import Scenario
import ScenarioRunner
import WebKitSession

extension SignInSimCLI {
    /// `--browser lite|webkit`, on `run`, `matrix` and `sign-in`.
    static let browserOption = OptionSpec.option(
        "browser", value: "engine",
        help:
            "The web sheet's engine: lite (HTML forms, no JavaScript) or webkit (WebKitGTK); default lite"
            + " against the embedded issuer, webkit against another one when it is installed.",
        allowed: BrowserEngine.allCases.map(\.rawValue))

    /// The engine `--browser` names, if any.
    static func requestedBrowser(_ arguments: ParsedArguments) throws -> BrowserEngine? {
        guard let text = arguments.value(browserOption) else { return nil }
        guard let engine = BrowserEngine(rawValue: text) else {
            throw UsageError(
                "The value '\(text)' is invalid for '--browser <engine>': expected one of "
                    + BrowserEngine.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return engine
    }

    /// The run's browsers for `scenarios`: the WebKit engine is found when a sheet will need it.
    ///
    /// A sheet needs it when `--browser webkit` says so or a scenario or app names `webkit`:
    /// then a missing engine is exit 2 with the packages to install. When only the automatic
    /// choice would have picked it (a real issuer), the run goes on in `lite` and says why.
    static func browserSelection(
        _ arguments: ParsedArguments, scenarios: [Scenario], context: CLIContext
    ) throws -> BrowserSelection {
        let requested = try requestedBrowser(arguments)
        let pinned = scenarios.contains { scenario in
            scenario.usesBrowser(.webkit, runDefault: requested ?? .lite)
        }
        let automatic = requested == nil && scenarios.contains { !$0.issuer.isEmbedded }
        guard pinned || automatic else { return BrowserSelection(requested: requested) }
        do {
            let engine = try WebKitEngine.locate(environment: context.environment)
            return BrowserSelection(requested: requested, webKit: engine)
        } catch {
            if pinned { throw CommandFailure("\(error.message)", exitCode: .invalidInput) }
            context.writeError(
                "signinsim: sheets run in lite, which runs no JavaScript: \(error.message)\n")
            return BrowserSelection(requested: requested)
        }
    }
}
