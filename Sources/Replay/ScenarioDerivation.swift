public import Recordings

/// Derives a scenario from a capture (`signinsim import-har`).
public enum ScenarioDerivation {
    public static func yaml(from capture: HARCapture, name: String, profile: String = "default")
        throws(CaptureReplay.Failure) -> String
    {
        throw CaptureReplay.Failure(description: "import-har is being rewritten")
    }
}
