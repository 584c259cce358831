public import HTTPCore
public import SignInSDK

/// Where a scenario runs when it re-enacts a capture (`signinsim replay`): the phone's network
/// and its Apple ID sheet are answered from the recording, the world's clock starts at the
/// capture's first moment, and the issuer is the recorded one.
///
/// In a replay the issuer's side is the capture, so steps that act on the issuer (`issuer:`),
/// at Apple (`appleRevokeConsent`, `appleCredential`) or on the network (`network:`, whose
/// effect the capture already holds) are skipped, but for the app's side of a revocation: the
/// device still posts Apple's revocation notification to the app. `issuer: {clock: …}` moves
/// the world's clock as it did then, checks (`expect`) are skipped, and an SDK call's outcome
/// is recorded without stopping the run, whatever the step expected: a replayed app with
/// another profile may part ways with the recording, and the report says where.
public struct ReplayTarget: Sendable {
    /// Answers the phone's requests, app and browser alike.
    public var network: any HTTPTransport
    /// Answers the phone's Apple ID sheet.
    public var apple: any HTTPTransport
    /// The recorded issuer, which the apps are configured with.
    public var issuerURL: String
    /// The recorded Apple, when the capture has one.
    public var appleURL: String?
    /// The world's clock at the start, in seconds since the Unix epoch.
    public var epochSeconds: Int64
    /// Told when an SDK call a replay made has returned, with the id `ReplayCall.current` had
    /// while it ran: a replayed race hands out its answers one call at a time.
    public var callFinished: @Sendable (UInt64) -> Void
    /// Sessions the apps hold when the capture begins (by bundle id): a capture that starts
    /// mid-session shows an app already signed in. Each is stored through the SDK's `restore`
    /// when its app first launches, before the first recorded call.
    public var startingSessions: [String: Session]

    public init(
        network: any HTTPTransport, apple: any HTTPTransport, issuerURL: String, appleURL: String?,
        epochSeconds: Int64, startingSessions: [String: Session] = [:],
        callFinished: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) {
        self.startingSessions = startingSessions
        self.network = network
        self.apple = apple
        self.issuerURL = issuerURL
        self.appleURL = appleURL
        self.epochSeconds = epochSeconds
        self.callFinished = callFinished
    }
}

/// The SDK call a replayed request belongs to.
public enum ReplayCall {
    /// Set around each SDK call of a replay, so that the transport can tell which call sent a
    /// request (the app's own tasks, a shared refresh included, inherit it).
    @TaskLocal public static var current: UInt64?
}
