import Issuer
import Testing
import WorldVocabulary

/// `refresh_rotation` in tenant files, the older keys it replaces, and what is refused.
@Suite("Tenant files: refresh rotation")
struct TenantLoaderRotationTests {
    static func load(_ text: String) throws -> Tenant {
        try TenantLoader.load(bytes: Array(text.utf8), fileName: "tenant.yaml")
    }

    /// A profile name alone takes the real issuer's defaults.
    @Test(
        "a profile by name",
        arguments: [
            ("signinsim", RefreshRotation.signinsim(grace: 0, onReuse: .revokeFamily)),
            ("auth0", .auth0(reuseInterval: 0)), ("okta", .okta(gracePeriod: 30)),
            ("keycloak", .keycloak(maxReuse: 0)),
            ("django-oauth-toolkit", .djangoOAuthToolkit(gracePeriod: 0, reuseProtection: false)),
            ("none", .none),
        ])
    func byName(name: String, expected: RefreshRotation) throws {
        #expect(
            try Self.load("refresh_rotation: \(name)\n").refreshRotation == RefreshRotationSettings(expected))
    }

    /// Each profile's settings, and the concurrent refresh answer.
    @Test("settings of each profile")
    func settings() throws {
        let cases: [(String, RefreshRotationSettings)] = [
            (
                "{profile: signinsim, grace: 30, on_reuse: refuse}",
                RefreshRotationSettings(.signinsim(grace: 30, onReuse: .refuse))
            ),
            ("{profile: auth0, reuse_interval: 10}", RefreshRotationSettings(.auth0(reuseInterval: 10))),
            ("{profile: okta, grace_period: 60}", RefreshRotationSettings(.okta(gracePeriod: 60))),
            ("{profile: keycloak, max_reuse: 3}", RefreshRotationSettings(.keycloak(maxReuse: 3))),
            (
                "{profile: django-oauth-toolkit, grace_period: 5, reuse_protection: true, concurrent_refresh: server-error}",
                RefreshRotationSettings(
                    .djangoOAuthToolkit(gracePeriod: 5, reuseProtection: true),
                    concurrentRefresh: .serverError)
            ),
        ]
        for (text, expected) in cases {
            #expect(try Self.load("refresh_rotation: \(text)\n").refreshRotation == expected, "\(text)")
        }
    }

    /// Auth0, Okta, SignInSim and no rotation may be set per client; the tenant's applies to
    /// the others, and `null` drops a client's own.
    @Test("per client")
    func perClient() throws {
        let tenant = try Self.load(
            """
            refresh_rotation: {profile: auth0, reuse_interval: 5}
            clients:
              - {client_id: a.app, refresh_rotation: okta}
              - {client_id: b.app, refresh_rotation: none}
              - {client_id: com.example.app, refresh_rotation: null}
            """)
        #expect(tenant.refreshRotation.profile == .auth0(reuseInterval: 5))
        #expect(tenant.client("a.app")?.refreshRotation == RefreshRotationSettings(.okta(gracePeriod: 30)))
        #expect(tenant.client("b.app")?.refreshRotation == RefreshRotationSettings(.none))
        #expect(tenant.client("com.example.app")?.refreshRotation == nil)
    }

    /// The older keys are the `signinsim` profile's settings, and `rotate_refresh_tokens: false`
    /// is `none`.
    @Test("older keys")
    func olderKeys() throws {
        let tenant = try Self.load(
            """
            refresh_token_reuse: refuse
            lifetimes: {refresh_reuse_grace: 7}
            clients:
              - {client_id: a.app, rotate_refresh_tokens: false}
              - {client_id: b.app, lifetimes: {refresh_reuse_grace: 3}}
              - {client_id: c.app, rotate_refresh_tokens: true}
            """)
        #expect(tenant.refreshRotation == RefreshRotationSettings(.signinsim(grace: 7, onReuse: .refuse)))
        #expect(tenant.client("a.app")?.refreshRotation == RefreshRotationSettings(.none))
        #expect(
            tenant.client("b.app")?.refreshRotation
                == RefreshRotationSettings(.signinsim(grace: 3, onReuse: .refuse)))
        #expect(tenant.client("c.app")?.refreshRotation == nil)
    }

    static let refused: [BadTenantFile] = [
        BadTenantFile(
            name: "unknown profile", text: "refresh_rotation: cognito\n", line: 1, column: 19,
            message: "unknown refresh rotation profile \"cognito\"; expected one of signinsim, auth0, okta"),
        BadTenantFile(
            name: "a setting of another profile",
            text: "refresh_rotation:\n  profile: okta\n  reuse_interval: 5\n", line: 3, column: 3,
            message: "reuse_interval is a setting of profile auth0, not of okta; okta takes grace_period"),
        BadTenantFile(
            name: "Okta's grace period over 60 s",
            text: "refresh_rotation: {profile: okta, grace_period: 61}\n",
            line: 1, column: 49, message: "Okta's grace_period is 0 to 60 seconds, found 61"),
        BadTenantFile(
            name: "negative reuse interval", text: "refresh_rotation: {profile: auth0, reuse_interval: -1}\n",
            line: 1, column: 52, message: "reuse_interval must not be negative (0 turns it off), found -1"),
        BadTenantFile(
            name: "negative max reuse", text: "refresh_rotation: {profile: keycloak, max_reuse: -2}\n",
            line: 1,
            column: 50, message: "max_reuse must be 0 or more, found -2"),
        BadTenantFile(
            name: "keycloak on a client",
            text: "clients:\n  - client_id: a.app\n    refresh_rotation: keycloak\n", line: 3, column: 23,
            message:
                "client \"a.app\" cannot have its own keycloak rotation: it is a realm setting in Keycloak"),
        BadTenantFile(
            name: "django-oauth-toolkit on a client",
            text: "clients:\n  - {client_id: a.app, refresh_rotation: {profile: django-oauth-toolkit}}\n",
            line: 2,
            column: 52, message: "it is a server-wide setting in django-oauth-toolkit"),
        BadTenantFile(
            name: "no profile", text: "refresh_rotation: {grace: 5}\n", line: 1, column: 19,
            message: "refresh_rotation needs profile"),
        BadTenantFile(
            name: "unknown concurrent answer",
            text: "refresh_rotation: {profile: auth0, concurrent_refresh: crash}\n", line: 1, column: 56,
            message: "unknown concurrent_refresh \"crash\"; expected serialized or server-error"),
        BadTenantFile(
            name: "concurrent answer without rotation",
            text: "refresh_rotation: {profile: none, concurrent_refresh: server-error}\n", line: 1,
            column: 55,
            message: "concurrent_refresh needs a profile that rotates refresh tokens"),
        BadTenantFile(
            name: "both spellings on the tenant",
            text: "refresh_rotation: okta\nrefresh_token_reuse: refuse\n",
            line: 2, column: 1,
            message: "refresh_token_reuse is the older spelling of refresh_rotation's on_reuse"),
        BadTenantFile(
            name: "both spellings of the grace",
            text: "refresh_rotation: okta\nlifetimes: {refresh_reuse_grace: 5}\n", line: 2, column: 34,
            message: "refresh_reuse_grace is the older spelling of refresh_rotation's grace"),
        BadTenantFile(
            name: "both spellings on a client",
            text: "clients:\n  - {client_id: a.app, rotate_refresh_tokens: false, refresh_rotation: none}\n",
            line: 2, column: 24,
            message: "rotate_refresh_tokens is the older spelling of refresh_rotation's profile"),
        BadTenantFile(
            name: "a grace without rotation",
            text:
                "clients:\n  - {client_id: a.app, rotate_refresh_tokens: false, lifetimes: {refresh_reuse_grace: 5}}\n",
            line: 2, column: 87, message: "rotate_refresh_tokens: false turns rotation off"),
        BadTenantFile(
            name: "old reuse policy value", text: "refresh_token_reuse: forget\n", line: 1, column: 22,
            message: "unknown refresh_token_reuse \"forget\"; expected revoke-family or refuse"),
    ]

    /// Every refusal names the line, the column and the reason.
    @Test("refused settings", arguments: refused)
    func refusedSettings(_ bad: BadTenantFile) throws {
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array(bad.text.utf8), fileName: bad.fileName)
        }
        #expect(error.line == bad.line, "\(error)")
        if let column = bad.column { #expect(error.column == column, "\(error)") }
        #expect(error.message.contains(bad.message), "\(error)")
    }
}
