/// Who sent a request on a simulated device: an app's own HTTP client (the SDK's `URLSession`),
/// or a browser sheet the app presented, as `URLRequest.attribution` and Safari's Web Inspector
/// tell them apart on a phone.
///
/// A task-local value set by the device model around an app's calls and its sheets' page
/// loads, read by the layers that log exchanges: the SDK itself never sees it.
public struct RequestInitiator: Hashable, Sendable {
    /// What inside the app sent it.
    public enum Agent: String, Hashable, Sendable {
        /// The app's code and its SDK.
        case app
        /// A web authentication sheet the app presented.
        case browser
    }

    public var agent: Agent
    /// The app's bundle id, when known.
    public var app: String?
    /// The engine of the sheet, for `.browser`.
    public var engine: BrowserEngine?
    /// Sent for a check the simulator makes after the fact (whether a sign-out ended the
    /// issuer's session), not by the app: such requests meet no network fault and stay out of
    /// the app's log, its expectations and its HAR.
    public var isCheck: Bool

    public init(agent: Agent, app: String?, engine: BrowserEngine? = nil, isCheck: Bool = false) {
        self.agent = agent
        self.app = app
        self.engine = engine
        self.isCheck = isCheck
    }

    /// The initiator of the page loads of a sheet in `engine` presented under `presenter`: the
    /// browser, on behalf of the same app and for the same purpose.
    public static func sheet(presentedBy presenter: RequestInitiator?, engine: BrowserEngine)
        -> RequestInitiator
    {
        RequestInitiator(
            agent: .browser, app: presenter?.app, engine: engine, isCheck: presenter?.isCheck ?? false)
    }

    /// The initiator of the requests the current task sends.
    @TaskLocal public static var current: RequestInitiator?
}

/// The browser engines a web authentication sheet can run in.
public enum BrowserEngine: String, Hashable, Sendable, CaseIterable {
    /// libcurl and libxml2: plain HTML forms, no JavaScript; a sign-in in milliseconds.
    case lite
    /// WebKitGTK in a helper process: the engine iOS's sheet is, scripts and all.
    case webkit
}
