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

    /// The fields typed at attempt `attempt` (0 for the first): the first attempt's, with the
    /// changes of every retry up to this one.
    func fields(forAttempt attempt: Int) -> FormParameters {
        var typed = fields
        for retry in retries.prefix(attempt) {
            for pair in retry { typed[pair.name] = pair.value }
        }
        return typed
    }

    /// What the user types into `form` at attempt `attempt`: ``fields(forAttempt:)``, with the
    /// username moved to the form's username input when the form has no input of the name the
    /// script used.
    ///
    /// The username input is found as a password manager finds it: the last text-like input
    /// before the first password input (Chromium's form parser falls back to this rule when the
    /// page gives no `autocomplete="username"`). A form without a password input, or with the
    /// named input, is filled by name only.
    public func typing(into form: HTMLForm, attempt: Int) -> FormParameters {
        var typed = fields(forAttempt: attempt)
        guard let usernameField, let username = typed[usernameField],
            !form.fields.contains(where: { $0.name == usernameField }),
            let firstPassword = form.fields.firstIndex(where: { $0.kind == .password }),
            let slot = form.fields[..<firstPassword].last(where: { $0.kind == .text }),
            typed[slot.name] == nil
        else { return typed }
        typed[usernameField] = nil
        typed.append(slot.name, username)
        return typed
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

    /// The consent button the user presses on `form`, or `nil` when none fits the decision.
    public func consentButton(in form: HTMLForm) -> HTMLSubmitButton? {
        switch consent {
        case .approve:
            form.submitButtons.first {
                $0.mentions(any: Self.approveWords) && !$0.mentions(any: Self.denyWords)
            }
        case .deny:
            form.submitButtons.first { $0.mentions(any: Self.denyWords) }
        }
    }

    /// Whether `form` asks for what this user types: a password, or a field the user fills.
    func isLoginForm(_ form: HTMLForm) -> Bool {
        form.hasPasswordField || form.fields.contains { $0.isEditable && fields[$0.name] != nil }
    }

    /// Whether `form` asks to confirm a sign-out (a button that says so, no password).
    public static func isSignOutForm(_ form: HTMLForm) -> Bool { signOutButton(in: form) != nil }

    /// The button that confirms a sign-out on `form`: no password, a button that says so.
    static func signOutButton(in form: HTMLForm) -> HTMLSubmitButton? {
        guard !form.hasPasswordField else { return nil }
        return form.submitButtons.first { $0.mentions(any: signOutWords) }
    }

    /// Whether `form` is a consent form: no password, and a button that approves or refuses.
    static func isConsentForm(_ form: HTMLForm) -> Bool {
        !form.hasPasswordField
            && form.submitButtons.contains { $0.mentions(any: approveWords) || $0.mentions(any: denyWords) }
    }
}
