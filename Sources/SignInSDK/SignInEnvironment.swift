public import Clocks
public import Cryptography
public import HTTPCore

/// Everything the SDK touches outside its own memory, injected by the host app.
///
/// On a phone these would be URLSession, the keychain, `UserDefaults`, `Date()`,
/// `SecRandomCopyBytes` and `Task { }`; here the host decides, and the SDK cannot tell the
/// difference.
public struct SignInEnvironment: Sendable {
    public var transport: any HTTPTransport
    public var storage: any TokenStorage
    public var preferences: any AppPreferences
    public var clock: any WallClock
    public var random: any RandomSource
    public var webAuthentication: (any WebAuthenticationUserAgent)?
    public var appleAuthorization: (any AppleAuthorizationProvider)?
    /// Starts the refresh that concurrent callers share (`TaskStarter`).
    public var taskStarter: any TaskStarter

    public init(
        transport: any HTTPTransport, storage: any TokenStorage = InMemoryTokenStorage(),
        preferences: any AppPreferences = InMemoryAppPreferences(), clock: any WallClock,
        random: any RandomSource, webAuthentication: (any WebAuthenticationUserAgent)? = nil,
        appleAuthorization: (any AppleAuthorizationProvider)? = nil,
        taskStarter: any TaskStarter = UnstructuredTaskStarter()
    ) {
        self.transport = transport
        self.storage = storage
        self.preferences = preferences
        self.clock = clock
        self.random = random
        self.webAuthentication = webAuthentication
        self.appleAuthorization = appleAuthorization
        self.taskStarter = taskStarter
    }
}
