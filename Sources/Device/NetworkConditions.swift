/// The state of a device's network, as a value: what Network Link Conditioner and a flaky
/// Wi-Fi do to an app's requests.
///
/// Precedence when a request is sent: offline beats everything (fails fast, no latency); a
/// captive portal answers everything else; then the first fault rule, in the order added,
/// that matches the request and has requests left; otherwise the request goes through.
public struct NetworkConditions: Hashable, Sendable {
    /// No route at all: `URLError.notConnectedToInternet` in the app, a connection failure here.
    public var isOffline: Bool
    /// Added to every request that leaves the device (not to offline failures).
    public var latency: Duration
    /// A Wi-Fi hotspot that answers every request with its login page.
    public var captivePortal: CaptivePortal?
    /// Counted faults, matched in order.
    public var faults: [NetworkFault]

    public init(
        isOffline: Bool = false, latency: Duration = .zero, captivePortal: CaptivePortal? = nil,
        faults: [NetworkFault] = []
    ) {
        self.isOffline = isOffline
        self.latency = latency
        self.captivePortal = captivePortal
        self.faults = faults
    }

    /// A good network.
    public static let normal = NetworkConditions()
}
