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

    public init(agent: Agent, app: String?) {
        self.agent = agent
        self.app = app
    }

    /// The initiator of the requests the current task sends.
    @TaskLocal public static var current: RequestInitiator?
}
