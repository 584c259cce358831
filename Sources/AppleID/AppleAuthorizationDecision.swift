/// The rules of a native Sign in with Apple request (`ASAuthorizationAppleIDProvider`), as
/// decisions that need no provider: the request's own rules, then what the provider's state
/// makes of it at an explicit time. `AppleIDProvider.authorize` asks them and applies the answer.
extension AppleAuthorizationRequest {
    /// Longest nonce copied into a token; a longer one fails the request (1004).
    static let maximumNonceLength = 1024

    /// The account the request is performed for, when the request itself can be performed, in
    /// the order the device checks: an Apple ID signed in, the sheet approved, a plausible
    /// bundle id, an account with an email address, a nonce of a sensible length.
    ///
    /// - Throws: `.noAccount` (1000) without an Apple ID; `.canceled` (1001) when the user
    ///   closes the sheet; `failed` (1004) for a malformed request.
    func admittedAccount() throws(AppleAuthorizationError) -> AppleIDAccount {
        guard let account else { throw .noAccount }
        guard decision == .approve else { throw .canceled }
        guard Self.isPlausibleBundleID(bundleID) else {
            throw AppleAuthorizationError(.failed, "bundle id \"\(bundleID.prefix(64))\" is not valid")
        }
        guard account.email.utf8.contains(UInt8(ascii: "@")), account.email.utf8.count <= 320 else {
            throw AppleAuthorizationError(.failed, "the Apple ID needs an email address")
        }
        if let nonce, nonce.utf8.count > Self.maximumNonceLength {
            throw AppleAuthorizationError(.failed, "nonce is longer than \(Self.maximumNonceLength) bytes")
        }
        return account
    }

    /// The requested scopes, each once, in the order first asked.
    var distinctScopes: [AppleScope] {
        requestedScopes.reduce(into: [AppleScope]()) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Reverse-DNS-ish: letters, digits, `.`, `-`, at most 155 characters (Apple's limit).
    static func isPlausibleBundleID(_ bundleID: String) -> Bool {
        !bundleID.isEmpty && bundleID.utf8.count <= 155
            && bundleID.unicodeScalars.allSatisfy(\.isAllowedInBundleID)
    }
}

extension Unicode.Scalar {
    fileprivate var isAllowedInBundleID: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self) || self == "."
            || self == "-"
    }
}

/// What the provider's configuration brings to an authorization.
struct AppleAuthorizationSettings: Sendable {
    /// The team of an app that is neither registered nor named by the request.
    var defaultTeamID: String
    /// How long the authorization code may be redeemed.
    var codeLifetime: Int64
}

/// What a native authorization does: the records it writes and what the credential shares.
struct AppleAuthorizationDecision: Sendable {
    /// The app, and the team it belongs to from now on.
    var bundleID: String
    var teamID: String
    /// The account's record, updated with what the device knows of it now.
    var accountKey: String
    var account: AppleAccountRecord
    /// The account's authorization of the app, now `authorized`.
    var authorizationKey: AppAuthorizationKey
    var authorization: AppAuthorizationRecord
    /// Whether this is a first authorization: none before, or the last one ended by revoking
    /// or stopping to use Apple ID with the app.
    var isFirst: Bool
    /// The scopes asked, each once.
    var scopes: [AppleScope]
    /// What the code (and the tokens it buys) let the provider mint.
    var grant: AppleGrant
    var codeExpiresAt: Int64

    /// The name the credential carries: only on a first authorization that asked for
    /// `fullName` and has one ("Authenticating users with Sign in with Apple": the user's
    /// information is shared only the first time the user signs in to the app).
    var sharedFullName: ApplePersonName? {
        guard isFirst, scopes.contains(.fullName), account.givenName != nil || account.familyName != nil
        else { return nil }
        return ApplePersonName(givenName: account.givenName, familyName: account.familyName)
    }

    /// The email the credential carries: only on a first authorization (as the name).
    var sharedEmail: String? { isFirst ? grant.email : nil }

    /// The scopes the credential reports granted: those asked, on a first authorization only.
    var authorizedScopes: [AppleScope] { isFirst ? scopes : [] }
}

extension AppleProviderState {
    /// What an admitted request (`AppleAuthorizationRequest.admittedAccount`) does to this state
    /// at `now`.
    ///
    /// - The app belongs to the team it is registered with; a request naming another team
    ///   fails (1004). An unregistered app is registered with the team named, else the default.
    /// - The account's name and real user status are those the device has now.
    /// - A first authorization fixes whether the email is shared (the `email` scope) and
    ///   whether it is the private relay address ("Hide My Email"); later ones keep that.
    /// - `sub` and the relay address are stable per developer team ("Transferring your apps
    ///   and users to another team").
    /// - The code is valid `codeLifetime` (Apple: five minutes) and single use.
    func decideAuthorization(
        _ request: AppleAuthorizationRequest, account: AppleIDAccount, settings: AppleAuthorizationSettings,
        now: Int64
    ) throws(AppleAuthorizationError) -> AppleAuthorizationDecision {
        let registered = apps[request.bundleID]
        let teamID = request.teamID ?? registered ?? settings.defaultTeamID
        if let registered, registered != teamID {
            throw AppleAuthorizationError(
                .failed, "\(request.bundleID) belongs to team \(registered), not \(teamID)")
        }
        let accountKey = AppleIdentifiers.accountKey(account.email)
        var record =
            accounts[accountKey]
            ?? AppleAccountRecord(email: account.email, realUserStatus: account.realUserStatus)
        if let given = account.givenName { record.givenName = given }
        if let family = account.familyName { record.familyName = family }
        record.realUserStatus = account.realUserStatus

        let scopes = request.distinctScopes
        let key = AppAuthorizationKey(account: accountKey, bundleID: request.bundleID)
        let previous = authorizations[key]
        let isFirst = previous.map { $0.state == .revoked || $0.state == .notFound } ?? true
        var authorization =
            previous
            ?? AppAuthorizationRecord(
                teamID: teamID, state: .notFound, generation: 0, sharesEmail: false, usesPrivateRelay: false)
        if isFirst {
            authorization.sharesEmail = scopes.contains(.email)
            authorization.usesPrivateRelay = account.privateRelay
        }
        authorization.teamID = teamID
        authorization.state = .authorized

        let grant = AppleGrant(
            authorization: key, generation: authorization.generation, clientID: request.bundleID,
            teamID: teamID, subject: AppleIdentifiers.subject(email: account.email, teamID: teamID),
            email: Self.sharedAddress(
                of: authorization, relayedFrom: account.email, stored: record.email, teamID: teamID),
            isPrivateEmail: authorization.usesPrivateRelay, realUserStatus: record.realUserStatus,
            authTime: now, nonce: request.nonce)
        return AppleAuthorizationDecision(
            bundleID: request.bundleID, teamID: teamID, accountKey: accountKey, account: record,
            authorizationKey: key, authorization: authorization, isFirst: isFirst, scopes: scopes,
            grant: grant,
            codeExpiresAt: now + settings.codeLifetime)
    }

    /// The email an authorization's tokens carry: none unless shared; with "Hide My Email" the
    /// team's relay address for the device's `email`, else the address the account was first
    /// seen with (`stored`).
    static func sharedAddress(
        of authorization: AppAuthorizationRecord, relayedFrom email: String, stored: String, teamID: String
    ) -> String? {
        guard authorization.sharesEmail else { return nil }
        return authorization.usesPrivateRelay
            ? AppleIdentifiers.relayAddress(email: email, teamID: teamID) : stored
    }

    /// Writes what an authorization decided, with its code stored under `codeKey`
    /// (`AppleIdentifiers.storageKey`).
    mutating func apply(_ decision: AppleAuthorizationDecision, codeKey: String) {
        apps[decision.bundleID] = decision.teamID
        accounts[decision.accountKey] = decision.account
        authorizations[decision.authorizationKey] = decision.authorization
        codes[codeKey] = AuthorizationCodeRecord(
            grant: decision.grant, expiresAt: decision.codeExpiresAt, used: false)
    }
}
