/// How far the device's clock and the issuer's may disagree before the SDK refuses an ID token
/// for its time claims (OpenID Connect Core §3.1.3.7 steps 9 and 10).
///
/// The one declaration of the SDK's clock rules: each profile names one of the presets below,
/// and the app's `leeway` setting replaces the expiry leeway of whichever applies
/// (`SignInOptions.clockTolerance`). Core leaves every number to the client ("acceptable
/// range", "small leeway"); the presets are those of the SDKs the model copies.
public struct ClockTolerance: Sendable, Hashable, CustomStringConvertible {
    /// Seconds an ID token is still accepted after its `exp`, and before its `nbf`: the leeway.
    public var expiryLeeway: Int64
    /// Seconds `iat` may lie ahead of the device's clock (a device clock that is behind).
    public var issuedAtFuture: Int64
    /// Seconds `iat` may lie behind the device's clock (a device clock that is ahead); `nil`
    /// sets no bound, so that only `exp` limits how old a token may look.
    public var issuedAtPast: Int64?

    public init(expiryLeeway: Int64, issuedAtFuture: Int64, issuedAtPast: Int64? = nil) {
        self.expiryLeeway = expiryLeeway
        self.issuedAtFuture = issuedAtFuture
        self.issuedAtPast = issuedAtPast
    }

    /// The default: the tolerant value of each SDK. 60 s on `exp` (Auth0.swift's default leeway,
    /// `IDTokenValidator.defaultLeeway`), `iat` at most 600 s ahead (AppAuth-iOS's
    /// `kOIDAuthorizationSessionIATMaxSkew`), no bound on how old `iat` is.
    public static let standard = ClockTolerance(expiryLeeway: 60, issuedAtFuture: 600)

    /// AppAuth-iOS's rule (`OIDAuthorizationService`, token response handling): the ID token is
    /// refused once `exp` has passed, with no leeway, and when `iat` is more than
    /// `kOIDAuthorizationSessionIATMaxSkew` (600 s) from the device's clock either way.
    public static let appAuth = ClockTolerance(expiryLeeway: 0, issuedAtFuture: 600, issuedAtPast: 600)

    /// No tolerance at all: `exp` and `iat` judged to the second on the device's clock, the
    /// behaviour of field bug 9 (`strict-clock`).
    public static let none = ClockTolerance(expiryLeeway: 0, issuedAtFuture: 0)

    /// The same rules with `leeway` seconds on `exp` instead, when one is given (the app's
    /// setting wins over the profile's default).
    public func withExpiryLeeway(_ leeway: Int64?) -> ClockTolerance {
        guard let leeway else { return self }
        var changed = self
        changed.expiryLeeway = leeway
        return changed
    }

    /// `exp 60 s, iat +600 s/-any`: the rules in a line, for messages and reports.
    public var description: String {
        "exp \(expiryLeeway) s, iat +\(issuedAtFuture) s/-\(issuedAtPast.map { "\($0) s" } ?? "any")"
    }
}
