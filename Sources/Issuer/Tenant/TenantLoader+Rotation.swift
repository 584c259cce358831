import WorldVocabulary
import YAML

/// `refresh_rotation`, on the tenant and on a client (`RefreshRotation`), and the older keys
/// that spell parts of the `signinsim` profile.
///
/// ```yaml
/// refresh_rotation: okta                                   # a profile with its issuer's defaults
/// refresh_rotation: {profile: auth0, reuse_interval: 10}   # or with its settings
/// ```
///
/// The older keys still read, as that profile: `refresh_token_reuse` (its `on_reuse`),
/// `lifetimes.refresh_reuse_grace` (its `grace`, on the tenant or a client) and a client's
/// `rotate_refresh_tokens` (`false` is the profile `none`). Each may not stand beside
/// `refresh_rotation` at the same level.
extension TenantDecoder {
    /// The older spelling of the `signinsim` profile's grace, in a `lifetimes` mapping.
    static let legacyGraceKey = "refresh_reuse_grace"

    /// Each profile setting's key, and the profiles that have it.
    static let rotationSettingKeys: [(key: String, profiles: [RefreshRotation.Name])] = [
        ("grace", [.signinsim]),
        ("on_reuse", [.signinsim]),
        ("reuse_interval", [.auth0]),
        ("grace_period", [.okta, .djangoOAuthToolkit]),
        ("max_reuse", [.keycloak]),
        ("reuse_protection", [.djangoOAuthToolkit]),
    ]
    static let rotationKeys = ["profile", "concurrent_refresh"] + rotationSettingKeys.map(\.key)

    /// The tenant's rotation: `refresh_rotation`, or the older keys on `base`.
    func tenantRotation(_ fields: TenantFields, legacyGrace: YAMLNode?, base: RefreshRotationSettings)
        throws(TenantError) -> RefreshRotationSettings
    {
        let legacyReuse = fields.mapping.pair(forKey: "refresh_token_reuse")
        if let node = fields["refresh_rotation"] {
            if let legacyReuse {
                throw bothSpellings("refresh_token_reuse", "on_reuse", at: legacyReuse.key.mark)
            }
            if let legacyGrace { throw bothSpellings(Self.legacyGraceKey, "grace", at: legacyGrace.mark) }
            return try refreshRotation(node, ofClient: nil)
        }
        guard legacyReuse != nil || legacyGrace != nil else { return base }
        var (grace, onReuse) = Self.signinsimSettings(of: base.profile)
        if let legacyReuse { onReuse = try reusePolicy(legacyReuse.value, "refresh_token_reuse") }
        if let legacyGrace { grace = try seconds(legacyGrace, Self.legacyGraceKey) }
        return RefreshRotationSettings(
            .signinsim(grace: grace, onReuse: onReuse), concurrentRefresh: base.concurrentRefresh)
    }

    /// A client's own rotation (`nil`: the tenant's): `refresh_rotation`, or the older keys.
    func clientRotation(
        _ fields: TenantFields, legacyGrace: YAMLNode?, base: RefreshRotationSettings?,
        tenant: RefreshRotationSettings
    ) throws(TenantError) -> RefreshRotationSettings? {
        let clientID = fields["client_id"]?.string ?? ""
        let legacyRotate = fields.mapping.pair(forKey: "rotate_refresh_tokens")
        if let node = fields["refresh_rotation"] {
            if let legacyRotate {
                throw bothSpellings("rotate_refresh_tokens", "profile", at: legacyRotate.key.mark)
            }
            if let legacyGrace { throw bothSpellings(Self.legacyGraceKey, "grace", at: legacyGrace.mark) }
            return node.isNull ? nil : try refreshRotation(node, ofClient: clientID)
        }
        var result = base
        if let legacyGrace {
            let (_, onReuse) = Self.signinsimSettings(of: (base ?? tenant).profile)
            result = RefreshRotationSettings(
                .signinsim(grace: try seconds(legacyGrace, Self.legacyGraceKey), onReuse: onReuse),
                concurrentRefresh: (base ?? tenant).concurrentRefresh)
        }
        if let legacyRotate {
            if try bool(legacyRotate.value, "rotate_refresh_tokens") {
                if result?.profile == RefreshRotation.none { result = nil }
            } else {
                if let legacyGrace {
                    throw failure(
                        "\(Self.legacyGraceKey) is a grace for rotated refresh tokens, and "
                            + "rotate_refresh_tokens: false turns rotation off; give one of them",
                        at: legacyGrace.mark)
                }
                result = RefreshRotationSettings(.none)
            }
        }
        return result
    }

    /// A `refresh_rotation` value: a profile name, or a mapping with `profile` and its settings.
    ///
    /// - Parameter clientID: the client it belongs to; `nil` on the tenant.
    func refreshRotation(_ node: YAMLNode, ofClient clientID: String?) throws(TenantError)
        -> RefreshRotationSettings
    {
        if node.scalar != nil {
            return RefreshRotationSettings(try profileName(node, ofClient: clientID).defaults)
        }
        let fields = try fields(node, of: "refresh_rotation", allowed: Self.rotationKeys)
        let name = try profileName(
            try required("profile", in: fields, of: "refresh_rotation"), ofClient: clientID)
        try checkSettingKeys(fields, of: name)
        let concurrent = try concurrentRefresh(fields, of: name)
        return RefreshRotationSettings(try rotationProfile(name, fields), concurrentRefresh: concurrent)
    }

    /// Every setting of the mapping belongs to the profile it names.
    private func checkSettingKeys(_ fields: TenantFields, of name: RefreshRotation.Name) throws(TenantError) {
        for pair in fields.mapping.pairs {
            guard let key = pair.key.scalar?.value,
                let entry = Self.rotationSettingKeys.first(where: { $0.key == key }),
                !entry.profiles.contains(name)
            else { continue }
            let owners = entry.profiles.map(\.rawValue).joined(separator: " and ")
            throw failure(
                "\(key) is a setting of profile \(owners), not of \(name.rawValue); "
                    + "\(name.rawValue) takes \(Self.settingKeys(of: name))", at: pair.key.mark)
        }
    }

    /// `concurrent_refresh`, for a profile that rotates; `serialized` when not given.
    private func concurrentRefresh(_ fields: TenantFields, of name: RefreshRotation.Name) throws(TenantError)
        -> ConcurrentRefresh
    {
        guard let node = fields["concurrent_refresh"] else { return .serialized }
        let value = try string(node, "concurrent_refresh")
        guard let parsed = ConcurrentRefresh(rawValue: value) else {
            throw failure(
                "unknown concurrent_refresh \"\(value.prefix(32))\"; expected "
                    + ConcurrentRefresh.allCases.map(\.rawValue).joined(separator: " or "), at: node.mark)
        }
        if name == .none {
            throw failure(
                "concurrent_refresh needs a profile that rotates refresh tokens; none does not", at: node.mark
            )
        }
        return parsed
    }

    /// The profile a name and its settings make, each setting defaulted as the real issuer does.
    private func rotationProfile(_ name: RefreshRotation.Name, _ fields: TenantFields) throws(TenantError)
        -> RefreshRotation
    {
        switch name {
        case .signinsim:
            return .signinsim(
                grace: try fields["grace"].map { node throws(TenantError) in try seconds(node, "grace") }
                    ?? 0,
                onReuse: try fields["on_reuse"].map { node throws(TenantError) in
                    try reusePolicy(node, "on_reuse")
                } ?? .revokeFamily)
        case .auth0:
            return .auth0(
                reuseInterval: try fields["reuse_interval"].map { node throws(TenantError) in
                    try seconds(node, "reuse_interval")
                } ?? 0)
        case .okta:
            let grace =
                try fields["grace_period"].map { node throws(TenantError) in try seconds(node, "grace_period")
                }
                ?? RefreshRotation.oktaDefaultGracePeriod
            if let node = fields["grace_period"], grace > RefreshRotation.oktaLongestGracePeriod {
                throw failure(
                    "Okta's grace_period is 0 to \(RefreshRotation.oktaLongestGracePeriod) seconds, found \(grace)",
                    at: node.mark)
            }
            return .okta(gracePeriod: grace)
        case .keycloak:
            var maxReuse = 0
            if let node = fields["max_reuse"] {
                let count = try integer(node, "max_reuse")
                guard (0...Int64(Int32.max)).contains(count) else {
                    throw failure("max_reuse must be 0 or more, found \(count)", at: node.mark)
                }
                maxReuse = Int(count)
            }
            return .keycloak(maxReuse: maxReuse)
        case .djangoOAuthToolkit:
            return .djangoOAuthToolkit(
                gracePeriod: try fields["grace_period"].map { node throws(TenantError) in
                    try seconds(node, "grace_period")
                } ?? 0,
                reuseProtection: try fields["reuse_protection"].map { node throws(TenantError) in
                    try bool(node, "reuse_protection")
                } ?? false)
        case .none:
            return .none
        }
    }

    /// A profile name; on a client, only one that the real issuer sets per application.
    private func profileName(_ node: YAMLNode, ofClient clientID: String?) throws(TenantError)
        -> RefreshRotation.Name
    {
        let value = try string(node, "profile")
        guard let name = RefreshRotation.Name(rawValue: value) else {
            throw failure(
                "unknown refresh rotation profile \"\(value.prefix(32))\"; expected one of "
                    + RefreshRotation.Name.allCases.map(\.rawValue).joined(separator: ", "), at: node.mark)
        }
        if let clientID, !name.isPerClient {
            let setting =
                name == .keycloak
                ? "a realm setting in Keycloak" : "a server-wide setting in django-oauth-toolkit"
            throw failure(
                "client \"\(clientID.prefix(200))\" cannot have its own \(name.rawValue) rotation: it is "
                    + "\(setting); put refresh_rotation at the top level of the tenant file", at: node.mark)
        }
        return name
    }

    /// The setting keys a profile takes, for messages.
    private static func settingKeys(of name: RefreshRotation.Name) -> String {
        let keys = rotationSettingKeys.filter { $0.profiles.contains(name) }.map(\.key)
        return keys.isEmpty ? "no settings" : keys.joined(separator: ", ")
    }

    /// The `signinsim` settings of a profile, or that profile's defaults for another one.
    private static func signinsimSettings(of profile: RefreshRotation) -> (
        grace: Int64, onReuse: RefreshTokenReuse
    ) {
        if case .signinsim(let grace, let onReuse) = profile { return (grace, onReuse) }
        return (0, .revokeFamily)
    }

    private func reusePolicy(_ node: YAMLNode, _ name: String) throws(TenantError) -> RefreshTokenReuse {
        let value = try string(node, name)
        guard let reuse = RefreshTokenReuse(rawValue: value) else {
            let known = RefreshTokenReuse.allCases.map(\.rawValue).joined(separator: " or ")
            throw failure("unknown \(name) \"\(value.prefix(32))\"; expected \(known)", at: node.mark)
        }
        return reuse
    }

    /// A number of seconds, 0 (off) up to ten years.
    private func seconds(_ node: YAMLNode, _ name: String) throws(TenantError) -> Int64 {
        let seconds = try integer(node, name)
        if seconds < 0 {
            throw failure("\(name) must not be negative (0 turns it off), found \(seconds)", at: node.mark)
        }
        if seconds > Self.longestLifetime {
            throw failure(
                "\(name) must be at most \(Self.longestLifetime) seconds (ten years), found \(seconds)",
                at: node.mark)
        }
        return seconds
    }

    private func bothSpellings(_ legacy: String, _ setting: String, at mark: YAMLMark) -> TenantError {
        failure(
            "\(legacy) is the older spelling of refresh_rotation's \(setting) (profile signinsim); "
                + "give refresh_rotation alone", at: mark)
    }
}
