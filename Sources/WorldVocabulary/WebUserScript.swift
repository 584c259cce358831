public import HTTPCore

/// What the simulated person does in the authentication sheet: the fields they type, whether
/// they approve or deny consent, and whether they cancel or walk away part-way.
///
/// It stands for the user of `ASWebAuthenticationSession`'s sheet; a value, so a scenario can
/// state it up front and replay it.
public struct WebUserScript: Hashable, Sendable {
    /// Where in the flow an interruption happens.
    public enum Point: String, Hashable, Sendable, CaseIterable {
        /// Before the first page is loaded: the sheet is dismissed as it appears.
        case beforeLoad = "before_load"
        /// On a login page, before typing.
        case login
        /// On a consent page, before choosing.
        case consent
    }

    /// How the user leaves the flow.
    public enum Interruption: Hashable, Sendable {
        /// Taps Cancel: the session ends with `canceledLogin` (ASWebAuthenticationSessionError 1).
        case cancel(at: Point)
        /// Does nothing more: the app went to the background or the device locked with the
        /// sheet up. The session stays pending until its handle is cancelled or its deadline
        /// passes (field bug 5: the stale transaction blocks the next sign-in).
        case abandon(at: Point)

        public var point: Point {
            switch self {
            case .cancel(let point), .abandon(let point): point
            }
        }
    }

    /// The answer to a consent page.
    public enum ConsentDecision: String, Hashable, Sendable, CaseIterable {
        case approve
        case deny
    }

    /// Words that mark a consent page's approving button (name, value or label).
    public static let approveWords = ["approve", "allow", "accept", "authorize", "authorise", "grant"]
    /// Words that mark a consent page's refusing button.
    public static let denyWords = ["deny", "cancel", "reject", "decline", "refuse"]
    /// Answers to a page that asks a yes-or-no question ("Do you want to log out?"), as whole
    /// words of a button's label.
    public static let yesWords = ["yes", "accept", "confirm", "ok", "continue", "proceed"]
    /// Buttons that only move on, as whole words of their label (Glewlwyd shows "Continue" after
    /// the login and after consent, before it redirects back to the app).
    public static let continueWords = ["continue", "proceed", "next", "ok", "go back to the app"]
    public static let noWords = ["no", "refuse", "cancel", "decline", "stay", "back", "not now"]
    /// Words that mark the button confirming a sign-out (django-oauth-toolkit's "Logout",
    /// django-allauth's "Sign Out", Keycloak's "Do you want to log out?" "Logout").
    public static let signOutWords = ["logout", "log out", "sign out", "signout", "log off", "sign off"]

    /// What the user types, by field name; hidden inputs are never changed.
    public var fields: FormParameters
    public var consent: ConsentDecision
    public var interruption: Interruption?
    /// What the user types into a login form shown again after a refused attempt, one entry per
    /// further attempt: the fields that change (a corrected password). When none is left, a
    /// login form shown again ends the session (`loginRejected`).
    public var retries: [FormParameters]
    /// The name under which `fields` holds the username, when the script was given one. A login
    /// form that names its username input otherwise (django-allauth's `login`) gets the username
    /// where a person would type it: see ``typing(into:attempt:)``.
    public var usernameField: String?
    /// The name under which `fields` holds the password. A form whose password input has
    /// another name (or none, on a page built by script) gets it in its password input.
    public var passwordField: String?
    /// What to fill and press where the person's own reading of a page is not enough: inputs
    /// and buttons named by CSS selector or by label (`fill`, `click`).
    public var overrides: [WebPageOverride]

    public init(
        fields: FormParameters = [:], consent: ConsentDecision = .approve, interruption: Interruption? = nil,
        retries: [FormParameters] = [], usernameField: String? = nil, passwordField: String? = nil,
        overrides: [WebPageOverride] = []
    ) {
        self.fields = fields
        self.consent = consent
        self.interruption = interruption
        self.retries = retries
        self.usernameField = usernameField
        self.passwordField = passwordField
        self.overrides = overrides
    }

    /// A user who signs in with a username and a password typed into fields of those names
    /// (`username` and `password` unless the issuer names them otherwise), and any other
    /// fields (`--fill NAME=VALUE`).
    public static func signIn(
        username: String, password: String, usernameField: String = "username",
        passwordField: String = "password", otherFields: FormParameters = [:],
        consent: ConsentDecision = .approve, interruption: Interruption? = nil
    ) -> WebUserScript {
        var fields = FormParameters()
        fields.append(usernameField, username)
        fields.append(passwordField, password)
        for pair in otherFields { fields[pair.name] = pair.value }
        return WebUserScript(
            fields: fields, consent: consent, interruption: interruption, usernameField: usernameField,
            passwordField: passwordField)
    }
}
