/// Switches that turn a correct SDK behaviour into one that real SDKs shipped and users reported,
/// or into a stricter one.
///
/// The default profile is the correct one. Each `KnownFault` reproduces one row of
/// `docs/field-bugs.md`, so that a scenario can show the faulty behaviour failing and the default
/// passing against the same issuer. `Strictness` goes the other way: checks the specifications
/// leave optional, which the default skips and the `strict` profile makes.
public struct BehaviorProfile: Sendable, Hashable, CustomStringConvertible {
    /// How concurrent callers that need a refresh are handled (field bug 1).
    public enum RefreshStrategy: String, Sendable, Hashable, CaseIterable {
        /// Every caller refreshes with the token it read: the rotation race.
        case naive
        /// One refresh at a time; each re-reads storage first (Auth0.swift's `CredentialsManager`).
        case serialized
        /// Concurrent callers share the refresh that is in flight (AppAuth's coalescing).
        case singleFlight = "single-flight"
    }

    /// A known faulty behaviour, by the field bug of `docs/field-bugs.md` it reproduces.
    public enum KnownFault: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Row 2: refreshed credentials are handed to the app first and written later, so a kill
        /// in between loses the rotated refresh token.
        case persistLate = "persist-late"
        /// Row 3: a refresh response without `refresh_token` overwrites the stored one with nil.
        case dropRefreshToken = "drop-refresh-token"
        /// Row 4: a keychain read error is taken for "no session", and the session is deleted.
        case keychainErrorSignsOut = "keychain-error-signs-out"
        /// Row 5: a web transaction that never finished blocks every later sign-in.
        case staleTransaction = "stale-transaction"
        /// Row 6: the sheet is presented without waiting for a foreground-active scene.
        case presentWhileInactive = "present-while-inactive"
        /// Row 7: a user cancel is reported as a generic failure.
        case misreadCancel = "misread-cancel"
        /// Row 7: a sheet the user swipes away is never reported; the call waits until the app
        /// is killed.
        case cancelNeverResolves = "cancel-never-resolves"
        /// Row 8: a callback without `state` is reported as a state error, whatever it carries:
        /// an error response, or nothing at all (the response was lost on the way).
        case errorWithoutStateIsStateError = "error-without-state-is-state-error"
        /// Row 8: a post-logout redirect must echo the `state` sent with the logout, and one
        /// without fails the sign-out before the local session is cleared (AppAuth-iOS#956).
        case logoutStateRequired = "logout-state-required"
        /// Row 9: no clock tolerance (0 s on `exp` and `iat`), expiry judged by the token's `exp`.
        case strictClock = "strict-clock"
        /// Row 10: the Apple exchange never sends `user_profile`.
        case neverSendUserProfile = "never-send-user-profile"
        /// Row 10: the name Apple gave is not kept for a retry after a failed exchange.
        case forgetAppleName = "forget-apple-name"
        /// Row 11: a nonce is always requested from Apple and sent on the native exchange.
        case nonceOnAppleExchange = "nonce-on-apple-exchange"
        /// Row 12: a failed Apple exchange is retried with the same (single-use) code.
        case retryAppleCode = "retry-apple-code"
        /// Row 13: exchange failures are reported without the issuer's error code.
        case opaqueExchangeErrors = "opaque-exchange-errors"
        /// Row 14: the web session shares the system browser's cookies (no ephemeral session).
        case sharedWebSession = "shared-web-session"
        /// Row 14: sign-out sends the end-session request from the SDK's own HTTP client rather
        /// than through the web sheet, so the issuer never sees (or clears) the browser's
        /// session cookie, and a shared session's SSO outlives the sign-out (AppAuth-iOS#402).
        case backChannelLogout = "back-channel-logout"
        /// Row 15: `iss` compared byte for byte (a trailing slash rejects every token).
        case exactIssuerMatch = "exact-issuer-match"
        /// Row 16: keychain items of a previous installation are used after a reinstall.
        case keepKeychainOnReinstall = "keep-keychain-on-reinstall"
        /// Not a row of its own: credentials are written before the ID token is verified.
        case persistBeforeVerify = "persist-before-verify"
        /// Not a row of its own (a neighbour of rows 1 and 2): the app refreshes with the refresh
        /// token of a copy of the credentials it keeps from its sign-in (or from the process's
        /// first refresh), not with the one the SDK stored after the last rotation, as an app
        /// that holds its credentials in a property and renews with that token does. Once the
        /// copy is stale the issuer refuses it (`invalid_grant`, RFC 6749 §5.2); the SDK then
        /// reads its store and, when that holds another refresh token, retries once with it
        /// and keeps the session. Against an issuer without reuse detection that costs a
        /// refused request per refresh; one with reuse detection (OAuth 2.0 Security BCP,
        /// RFC 9700 §4.14.2) revokes the token family at the stale token, and the retry fails.
        case staleRefreshCopy = "stale-refresh-copy"

        /// The field bug of `docs/field-bugs.md` this fault reproduces, if any.
        public var fieldBugRow: Int? {
            switch self {
            case .persistLate: 2
            case .dropRefreshToken: 3
            case .keychainErrorSignsOut: 4
            case .staleTransaction: 5
            case .presentWhileInactive: 6
            case .misreadCancel, .cancelNeverResolves: 7
            case .errorWithoutStateIsStateError, .logoutStateRequired: 8
            case .strictClock: 9
            case .neverSendUserProfile, .forgetAppleName: 10
            case .nonceOnAppleExchange: 11
            case .retryAppleCode: 12
            case .opaqueExchangeErrors: 13
            case .sharedWebSession, .backChannelLogout: 14
            case .exactIssuerMatch: 15
            case .keepKeychainOnReinstall: 16
            case .persistBeforeVerify, .staleRefreshCopy: nil
            }
        }

        public static func < (lhs: KnownFault, rhs: KnownFault) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Whose rules judge an ID token's `exp` and `iat` against the device's clock: a choice
    /// between correct behaviours, which the `strict-clock` fault overrides.
    public enum ClockRule: String, Sendable, Hashable, CaseIterable {
        /// `ClockTolerance.standard`: 60 s on `exp`, `iat` up to 600 s ahead.
        case standard
        /// `ClockTolerance.appAuth`: no leeway on `exp`, `iat` within ±600 s (AppAuth-iOS).
        case appAuth = "appauth-clock"

        /// The tolerance the rule stands for.
        public var tolerance: ClockTolerance {
            switch self {
            case .standard: .standard
            case .appAuth: .appAuth
            }
        }
    }

    /// Where a DPoP proof's `iat` comes from once the server has refused one for it.
    public enum DPoPTimeSource: String, Sendable, Hashable, CaseIterable {
        /// The device's clock, always: a proof refused because of the device's skew fails the
        /// call with `dpop_clock_skew` (Auth0.swift's `DPoPProofGenerator` stamps proofs with
        /// the device's time and nothing else).
        case device
        /// The server's time: after a refusal whose `Date` header (RFC 9110 §6.6.1) shows the
        /// device's skew, proofs for that server are stamped with the device's time plus the
        /// offset, and the request is retried once (as okta-mobile-swift's time coordinator
        /// keeps an offset from the `Date` of the server's responses).
        case serverDate = "dpop-server-date"
    }

    /// Checks stricter than the default: not faults, since a correct SDK may skip them.
    public struct Strictness: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Every ID token that comes with an access token from the token endpoint must carry
        /// `at_hash` (OIDC Core §3.1.3.6 makes it OPTIONAL in the code flow).
        public static let requireAccessTokenHash = Strictness(rawValue: 1 << 0)

        /// Every stricter check: what the profile name `strict` turns on.
        public static let strict: Strictness = [.requireAccessTokenHash]
    }

    public var refreshStrategy: RefreshStrategy
    public var faults: Set<KnownFault>
    public var strictness: Strictness
    public var clockRule: ClockRule
    public var dpopTime: DPoPTimeSource

    public init(
        refreshStrategy: RefreshStrategy = .singleFlight, faults: Set<KnownFault> = [],
        strictness: Strictness = [], clockRule: ClockRule = .standard, dpopTime: DPoPTimeSource = .device
    ) {
        self.refreshStrategy = refreshStrategy
        self.faults = faults
        self.strictness = strictness
        self.clockRule = clockRule
        self.dpopTime = dpopTime
    }

    /// The ID token clock rules of this profile before the app's `leeway`: no tolerance with
    /// the `strict-clock` fault, else the clock rule's.
    public var clockTolerance: ClockTolerance {
        has(.strictClock) ? .none : clockRule.tolerance
    }

    /// The correct behaviour everywhere.
    public static let `default` = BehaviorProfile()

    public func has(_ fault: KnownFault) -> Bool { faults.contains(fault) }

    /// Names for the CLI and scenarios: `default`, a refresh strategy (`naive`, `serialized`,
    /// `single-flight`), `strict`, the clock rule `appauth-clock`, the DPoP time source
    /// `dpop-server-date`, a fault name, or several joined with `+` (`naive+strict-clock`,
    /// `appauth-clock+dpop-server-date`). `appauth-clock` and `strict-clock` both decide the ID
    /// token clock rules, so they cannot be combined.
    public init(named name: String) throws(SignInError) {
        self.init()
        for part in Self.parts(of: name) {
            if part == Self.defaultName { continue }
            if let strategy = RefreshStrategy(rawValue: part) {
                refreshStrategy = strategy
            } else if part == Self.strictName {
                strictness.formUnion(.strict)
            } else if let rule = ClockRule(rawValue: part), rule != .standard {
                clockRule = rule
            } else if let source = DPoPTimeSource(rawValue: part), source != .device {
                dpopTime = source
            } else if let fault = KnownFault(rawValue: part) {
                faults.insert(fault)
            } else {
                throw SignInError(
                    .invalidConfiguration,
                    "unknown SDK profile \"\(part)\"; known: " + Self.names.joined(separator: ", "))
            }
        }
        if clockRule != .standard, has(.strictClock) {
            throw SignInError(
                .invalidConfiguration,
                "SDK profile \"\(name)\": \(clockRule.rawValue) and \(KnownFault.strictClock.rawValue) both "
                    + "set the ID token clock rules; choose one")
        }
    }

    /// The name of `Strictness.strict`.
    static let strictName = "strict"

    /// The name of `BehaviorProfile.default`.
    public static let defaultName = "default"

    /// The names a profile joins with `+` (`naive + strict` gives naive and strict).
    public static func parts(of name: String) -> [String] {
        name.split(separator: "+").map { String($0).trimmingSpaces() }
    }

    /// Every name `init(named:)` reads, alone or joined with `+`.
    public static var names: [String] {
        [defaultName] + RefreshStrategy.allCases.map(\.rawValue) + [strictName]
            + ClockRule.allCases.filter { $0 != .standard }.map(\.rawValue)
            + DPoPTimeSource.allCases.filter { $0 != .device }.map(\.rawValue)
            + KnownFault.allCases.map(\.rawValue)
    }

    /// The profile's name in the form `init(named:)` reads.
    public var description: String {
        var parts: [String] = []
        if refreshStrategy != .singleFlight { parts.append(refreshStrategy.rawValue) }
        if strictness == .strict { parts.append(Self.strictName) }
        if clockRule != .standard { parts.append(clockRule.rawValue) }
        if dpopTime != .device { parts.append(dpopTime.rawValue) }
        parts += faults.sorted().map(\.rawValue)
        return parts.isEmpty ? Self.defaultName : parts.joined(separator: "+")
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
