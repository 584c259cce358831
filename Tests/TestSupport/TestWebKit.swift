public import WebKitSession

/// The WebKit engine the tests share: one helper for the whole test process, as one engine
/// serves a whole run. The helper is the `signinsim-webkit` built beside the test binary
/// (`swift build --build-tests` builds it); a test that needs it fails with the engine's own
/// "not installed" message, naming the packages, when it is missing.
public enum TestWebKit {
    private static let shared: Result<WebKitEngine, WebKitEngineError> = Result {
        () throws(WebKitEngineError) -> WebKitEngine in try WebKitEngine.locate()
    }

    public static func engine() throws(WebKitEngineError) -> WebKitEngine { try shared.get() }
}
