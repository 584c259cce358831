import Foundation
import HTTPCore
public import WorldVocabulary

/// The person at the phone, deciding what to do on each page of the sheet: the same decisions
/// whichever engine shows the page.
///
/// They find the inputs of a login form as a password manager does (the `autocomplete` tokens
/// of HTML §4.10.18.7.1, input types, names and labels), log in in one form or in two steps (an
/// identifier page, then a password page), answer consent as scripted, confirm a sign-out, and
/// read what a page says went wrong. A value with its own counts: one per sheet.
public struct WebPerson: Sendable {
    public let user: WebUserScript
    public let purpose: WebAuthenticationSession.Purpose
    /// Most forms submitted in one sheet before the person gives up (`unexpectedPage`).
    public let maximumSubmissions: Int

    /// Passwords sent: a password form after that means one was refused.
    public private(set) var passwordSubmissions = 0
    /// Identifier pages (a username, no password) submitted.
    public private(set) var identifierSubmissions = 0
    public private(set) var submissions = 0
    /// Whether the person answered a consent page in this sheet.
    public private(set) var answeredConsent = false

    public init(user: WebUserScript, purpose: WebAuthenticationSession.Purpose, maximumSubmissions: Int = 10)
    {
        self.user = user
        self.purpose = purpose
        self.maximumSubmissions = maximumSubmissions
    }

    /// What the person does on a page.
    public enum Move: Hashable, Sendable {
        /// Fill these inputs and press this button (or submit the form).
        case act(WebPageAct)
        /// Close the sheet: a sign-out has nothing more to do on this page.
        case close
        /// Leave as scripted: cancel or walk away.
        case interrupt(WebUserScript.Interruption)
        /// The page offers nothing the person came for; the error says what it offered. An engine
        /// that runs scripts may wait for the page to change before giving up.
        case nothingToDo(WebAuthenticationError)
        /// The person stops here: the error says why (a refused password, a missing button).
        case fail(WebAuthenticationError)
    }

    /// One submission: the inputs typed into and the button pressed.
    public struct WebPageAct: Hashable, Sendable {
        /// The form group acted on (``WebPageForm/index``).
        public var form: Int
        public var fills: [Fill]
        /// The button pressed; nil submits the form as pressing Enter would.
        public var press: WebPageButton?
        /// What the trace records.
        public var action: WebPageVisit.Action
        /// How the person found each input and button, for the step's record.
        public var rules: [String]
        public var sendsPassword: Bool
        /// For a consent refusal: script the engine skipped that may have changed what it sent.
        public var scriptDependence: [ScriptDependence] = []
    }

    /// A value typed into an input.
    public struct Fill: Hashable, Sendable {
        public var field: WebPageField
        public var value: String
    }

    /// Decides the move on `page` (`status`: the HTTP status it came with, when known).
    public func move(on page: WebPage, status: Int?) -> Move {
        if purpose == .signOut { return signOutMove(on: page, status: status) }
        let matches = page.overrideMatches
        if !matches.isEmpty, let act = overrideAct(on: page, matches: matches) { return .act(act) }
        if let form = page.forms.first(where: isLoginForm) {
            return loginMove(on: page, form: form, status: status)
        }
        if let form = page.forms.first(where: isConsentForm) {
            return consentMove(on: page, form: form, status: status)
        }
        if let (form, button) = continueButton(on: page) {
            return .act(
                WebPageAct(
                    form: form.index, fills: [], press: button,
                    action: .continued(button: button.displayName),
                    rules: ["pressed \"\(button.displayName)\": the page asks nothing but to go on"],
                    sendsPassword: false))
        }
        if !page.isRendered, page.scriptCount > 0 {
            return .nothingToDo(
                WebAuthenticationError(
                    .javascriptRequired,
                    "\(Self.describe(page.url)) \"\(page.title ?? "an untitled page")\" shows no login or consent "
                        + "form in its HTML and has \(page.scriptCount) script(s): the page is built by JavaScript, "
                        + "which the lite engine does not run; run it with --browser webkit",
                    url: page.url, status: status))
        }
        let shown = page.alerts.isEmpty ? "" : ": " + page.alerts.joined(separator: " / ")
        return .nothingToDo(
            WebAuthenticationError(
                .unexpectedPage,
                "\(Self.describe(page.url)) showed \"\(page.title ?? "an untitled page")\" with "
                    + "\(page.forms.count) form(s), none a login or consent form\(shown)",
                url: page.url, status: status))
    }

    /// Counts a submission the engine carried out.
    public mutating func performed(_ act: WebPageAct) {
        submissions += 1
        if act.sendsPassword { passwordSubmissions += 1 }
        switch act.action {
        case .submittedIdentifier: identifierSubmissions += 1
        case .approvedConsent, .deniedConsent: answeredConsent = true
        default: break
        }
    }

    /// Whether one more submission is over the limit: the error to end with, if so.
    public func submissionLimitReached(on page: WebPage, status: Int?) -> WebAuthenticationError? {
        guard submissions >= maximumSubmissions else { return nil }
        return WebAuthenticationError(
            .unexpectedPage,
            "more than \(maximumSubmissions) forms were submitted without reaching the callback; last page "
                + "\(Self.describe(page.url)) \"\(page.title ?? "untitled")\"",
            url: page.url, status: status)
    }

    // MARK: Login

    /// A login form: a password to type, an identifier to give, or a field the script fills by name.
    func isLoginForm(_ form: WebPageForm) -> Bool {
        form.hasPasswordField || identifierField(in: form, beforePassword: false) != nil
            || form.fields.contains { $0.isEditable && user.fields[$0.name] != nil }
    }

    private func loginMove(on page: WebPage, form: WebPageForm, status: Int?) -> Move {
        let here = Self.describe(page.url)
        let attempt = passwordSubmissions
        let typed = user.fields(forAttempt: attempt)
        if form.hasPasswordField, passwordSubmissions > user.retries.count {
            return .fail(
                WebAuthenticationError(
                    .loginRejected,
                    "\(here) showed the login form again after the credentials were submitted: "
                        + Self.reason(page), url: page.url, status: status))
        }
        let identifierOnly = !form.hasPasswordField && identifierField(in: form, beforePassword: false) != nil
        if identifierOnly, identifierSubmissions > passwordSubmissions,
            identifierSubmissions > user.retries.count,
            !page.alerts.isEmpty
        {
            return .fail(
                WebAuthenticationError(
                    .loginRejected,
                    "\(here) showed the identifier page again after the username was submitted: "
                        + Self.reason(page), url: page.url, status: status))
        }
        if let interruption = user.interruption, interruption.point == .login {
            return .interrupt(interruption)
        }

        var fills: [Fill] = []
        var rules: [String] = []
        var filled = Set<Int>()
        func fill(_ field: WebPageField, _ value: String, _ rule: String) {
            guard !filled.contains(field.ref) else { return }
            filled.insert(field.ref)
            fills.append(Fill(field: field, value: value))
            rules.append("\(field.displayName): \(rule)")
        }
        // Inputs named as the script names them first (hidden ones never change).
        for field in form.fields where field.isEditable {
            guard !field.name.isEmpty, let value = typed[field.name] else { continue }
            fill(field, value, "named \"\(field.name)\" in the script")
        }
        // The username where a password manager would put it.
        if let name = user.usernameField, let username = typed[name],
            !form.fields.contains(where: { $0.name == name }),
            let (field, rule) = identifierField(in: form, beforePassword: form.hasPasswordField)
        {
            fill(field, username, rule)
        }
        // The password into the password input.
        if let name = user.passwordField, let password = typed[name],
            let field = currentPasswordField(in: form), !filled.contains(field.ref)
        {
            fill(
                field, password,
                field.autocomplete?.contains("current-password") == true
                    ? "autocomplete=current-password" : "the form's password input")
        }
        if let missing = form.passwordFields.first(where: { !filled.contains($0.ref) }) {
            return .fail(
                WebAuthenticationError(
                    .unexpectedPage,
                    "the login form of \(here) asks for the password field \"\(missing.displayName)\", "
                        + "which the script does not fill", url: page.url, status: status))
        }
        let button = primaryButton(in: form)
        if let button { rules.append("pressed \"\(button.displayName)\": \(Self.buttonRule(button, form))") }
        let typedNames = fills.map(\.field.displayName)
        let action: WebPageVisit.Action =
            identifierOnly && fills.allSatisfy({ $0.field.kind != .password })
            ? .submittedIdentifier(fields: typedNames) : .submittedLogin(fields: typedNames)
        return .act(
            WebPageAct(
                form: form.index, fills: fills, press: button, action: action, rules: rules,
                sendsPassword: form.hasPasswordField))
    }

    /// The password input a password manager fills at sign-in: the one marked
    /// `current-password`, else the first visible one (never `new-password`).
    private func currentPasswordField(in form: WebPageForm) -> WebPageField? {
        let candidates = form.passwordFields.filter { $0.autocomplete?.contains("new-password") != true }
        return candidates.first { $0.autocomplete?.contains("current-password") == true } ?? candidates.first
    }

    /// Names that mark an input for the account's identifier: Entra's `loginfmt`, Google's
    /// `identifier`, Okta's `identifier`, Keycloak's `username`, Java EE's `j_username`.
    static let identifierNames = [
        "username", "user", "email", "login", "identifier", "loginfmt", "j_username", "userid", "user_id",
        "account", "uid",
    ]

    /// The input for the username and the rule that found it, as a password manager looks: a
    /// `username` or `email` autocomplete token, then an email input, then a name, id or label
    /// that says so; with a password input, else the last text input before it.
    func identifierField(in form: WebPageForm, beforePassword: Bool) -> (WebPageField, String)? {
        let texts = form.fields.filter { $0.kind == .text && $0.isVisible }
        if let field = texts.first(where: { Self.tokens($0.autocomplete).contains("username") }) {
            return (field, "autocomplete=username")
        }
        if let field = texts.first(where: { Self.tokens($0.autocomplete).contains("email") }) {
            return (field, "autocomplete=email")
        }
        if let field = texts.first(where: { $0.inputType == "email" }) { return (field, "type=email") }
        for field in texts {
            let names = [field.name, field.id ?? ""].map { $0.lowercased() }
            if names.contains(where: { name in Self.identifierNames.contains(name) }) {
                return (field, "named \"\(field.name.isEmpty ? field.id ?? "" : field.name)\"")
            }
            if let label = field.label,
                WebPage.words(in: label).contains(where: {
                    ["email", "username", "user", "login", "phone"].contains($0)
                })
            {
                return (field, "labelled \"\(label)\"")
            }
        }
        if beforePassword,
            let password = form.fields.firstIndex(where: { $0.kind == .password && $0.isVisible }),
            let field = form.fields[..<password].last(where: { $0.kind == .text && $0.isVisible })
        {
            return (field, "the text input before the password")
        }
        return nil
    }

    private static func tokens(_ autocomplete: String?) -> [String] {
        (autocomplete ?? "").lowercased().split(separator: " ").map(String.init)
    }

    /// Words of buttons that do not log in: links to other flows and to other providers.
    static let otherFlowWords = [
        "cancel", "back", "forgot", "reset", "sign up", "signup", "register", "create", "google", "apple",
        "facebook", "microsoft", "github", "passkey", "help", "not you", "change", "language",
    ]
    /// Words of the button that logs in or moves to the next step.
    static let loginWords = [
        "sign in", "signin", "log in", "login", "continue", "next", "submit", "verify", "ok",
    ]

    /// The button a person presses to log in: one that says so, else the first that leads to no
    /// other flow, else the first.
    private func primaryButton(in form: WebPageForm) -> WebPageButton? {
        let candidates = form.buttons.filter { !$0.mentions(any: Self.otherFlowWords) }
        return candidates.first { $0.mentions(any: Self.loginWords) } ?? candidates.first
            ?? form.buttons.first
    }

    private static func buttonRule(_ button: WebPageButton, _ form: WebPageForm) -> String {
        if button.mentions(any: loginWords) { return "it says what the person came to do" }
        return form.buttons.count == 1 ? "the form's only button" : "the form's first button"
    }

    // MARK: Consent

    func isConsentForm(_ form: WebPageForm) -> Bool {
        !form.hasPasswordField
            && form.buttons.contains {
                $0.mentions(any: WebUserScript.approveWords) || $0.mentions(any: WebUserScript.denyWords)
            }
    }

    private func consentMove(on page: WebPage, form: WebPageForm, status: Int?) -> Move {
        if let interruption = user.interruption, interruption.point == .consent {
            return .interrupt(interruption)
        }
        let button: WebPageButton? =
            switch user.consent {
            case .approve:
                form.buttons.first {
                    $0.mentions(any: WebUserScript.approveWords) && !$0.mentions(any: WebUserScript.denyWords)
                }
            case .deny: form.buttons.first { $0.mentions(any: WebUserScript.denyWords) }
            }
        guard let button else {
            let labels = form.buttons.map { "\"\($0.label)\"" }.joined(separator: ", ")
            return .fail(
                WebAuthenticationError(
                    .unexpectedPage,
                    "the consent form of \(Self.describe(page.url)) has no button to \(user.consent.rawValue) "
                        + "(buttons: \(labels))", url: page.url, status: status))
        }
        let label = button.label.isEmpty ? button.value : button.label
        let action: WebPageVisit.Action =
            user.consent == .approve ? .approvedConsent(button: label) : .deniedConsent(button: label)
        var fills: [Fill] = []
        var rules: [String] = []
        if user.consent == .approve {
            // Approving grants what is asked: scopes offered as boxes to tick are ticked (the
            // one that would remember the decision is left alone).
            let boxes = form.fields.filter {
                $0.kind == .checkbox && $0.isVisible && !$0.isChecked
                    && !WebPage.words(in: ($0.label ?? "") + " " + $0.name).contains(where: {
                        ["remember", "trust", "always", "again"].contains($0)
                    })
            }
            fills = boxes.map { Fill(field: $0, value: "true") }
            if !boxes.isEmpty {
                rules.append(
                    "ticked \(boxes.map(\.displayName).joined(separator: ", ")): approving grants what is asked"
                )
            }
        }
        rules.append("pressed \"\(button.displayName)\": it says \(user.consent.rawValue)")
        return .act(
            WebPageAct(
                form: form.index, fills: fills, press: button, action: action, rules: rules,
                sendsPassword: false,
                scriptDependence: user.consent == .deny ? ScriptDependence.of(button, in: form, on: page) : []
            ))
    }

    /// On a page that asks nothing else: the button that moves on, if exactly what it says.
    private func continueButton(on page: WebPage) -> (WebPageForm, WebPageButton)? {
        for form in page.forms where !form.hasPasswordField {
            if let button = form.buttons.first(where: {
                $0.says(any: WebUserScript.continueWords) && !$0.mentions(any: Self.otherFlowWords)
            }) {
                return (form, button)
            }
        }
        return nil
    }

    // MARK: Sign-out

    /// Signing out, the person only confirms; any other page ends what there is to do.
    private func signOutMove(on page: WebPage, status: Int?) -> Move {
        for form in page.forms where !form.hasPasswordField {
            guard let button = form.buttons.first(where: { $0.mentions(any: WebUserScript.signOutWords) })
            else {
                continue
            }
            return .act(signOutAct(form, button, rule: "it says sign out"))
        }
        // "Do you want to log out?" answered Yes / Accept / Confirm.
        if Self.asksToSignOut(page) {
            for form in page.forms where !form.hasPasswordField {
                guard
                    let button = form.buttons.first(where: {
                        $0.says(any: WebUserScript.yesWords) && !$0.says(any: WebUserScript.noWords)
                    })
                else { continue }
                return .act(signOutAct(form, button, rule: "the page asks to sign out and it answers yes"))
            }
        }
        if !page.isRendered, page.scriptCount > 0, page.forms.allSatisfy({ $0.buttons.isEmpty }),
            !Self.saysSignedOut(page)
        {
            return .nothingToDo(
                WebAuthenticationError(
                    .javascriptRequired,
                    "\(Self.describe(page.url)) \"\(page.title ?? "untitled")\" shows no sign-out confirmation "
                        + "and no signed-out message in its HTML, and has \(page.scriptCount) script(s): the page "
                        + "is built by JavaScript, which the lite engine does not run; run it with --browser webkit",
                    url: page.url, status: status))
        }
        return .close
    }

    private func signOutAct(_ form: WebPageForm, _ button: WebPageButton, rule: String) -> WebPageAct {
        let label = button.label.isEmpty ? button.value : button.label
        return WebPageAct(
            form: form.index, fills: [], press: button, action: .confirmedSignOut(button: label),
            rules: ["pressed \"\(button.displayName)\": \(rule)"], sendsPassword: false)
    }

    /// Whether the page's text asks about signing out.
    static func asksToSignOut(_ page: WebPage) -> Bool {
        let text = page.text.lowercased()
        return WebUserScript.signOutWords.contains { text.contains($0) }
    }

    /// Whether the page says the person is signed out.
    static func saysSignedOut(_ page: WebPage) -> Bool {
        let text = ((page.title ?? "") + " " + page.text).lowercased()
        return ["signed out", "logged out", "signed off", "logged off", "log out successful"].contains {
            text.contains($0)
        }
    }

    // MARK: Overrides

    /// The act the scripted overrides make on a page they match: their fills, the username and
    /// password where the person finds them, and their click or the person's button.
    private func overrideAct(on page: WebPage, matches: [WebPageOverrideMatch]) -> WebPageAct? {
        var fills: [Fill] = []
        var rules: [String] = []
        var press: WebPageButton?
        var form: Int?
        for match in matches {
            guard let group = page.forms.first(where: { $0.index == match.form }) else { continue }
            switch user.overrides[match.override] {
            case .fill(let target, let value):
                guard let field = group.fields.first(where: { $0.ref == match.ref }),
                    !fills.contains(where: { $0.field.ref == field.ref })
                else { continue }
                fills.append(Fill(field: field, value: value))
                rules.append("\(field.displayName): the override \(target)")
                form = form ?? group.index
            case .click(let target):
                guard press == nil, let button = group.buttons.first(where: { $0.ref == match.ref }) else {
                    continue
                }
                press = button
                rules.append("pressed \"\(button.displayName)\": the override \(target)")
                form = group.index
            }
        }
        guard let form, let group = page.forms.first(where: { $0.index == form }) else { return nil }
        let typed = user.fields(forAttempt: passwordSubmissions)
        if let name = user.usernameField, let username = typed[name],
            let (field, rule) = identifierField(in: group, beforePassword: group.hasPasswordField),
            !fills.contains(where: { $0.field.ref == field.ref })
        {
            fills.append(Fill(field: field, value: username))
            rules.append("\(field.displayName): \(rule)")
        }
        if let name = user.passwordField, let password = typed[name],
            let field = currentPasswordField(in: group),
            !fills.contains(where: { $0.field.ref == field.ref })
        {
            fills.append(Fill(field: field, value: password))
            rules.append("\(field.displayName): the form's password input")
        }
        if press == nil, let button = primaryButton(in: group) {
            press = button
            rules.append("pressed \"\(button.displayName)\": \(Self.buttonRule(button, group))")
        }
        let sendsPassword = fills.contains { $0.field.kind == .password }
        return WebPageAct(
            form: form, fills: fills, press: press,
            action: .submittedLogin(fields: fills.map(\.field.displayName)), rules: rules,
            sendsPassword: sendsPassword)
    }

    // MARK: Words for reports

    /// What a page says went wrong, for a refused login: its alerts (``WebPage/alerts``), or
    /// that it has none. A page whose scripts ran (`webkit`) shows what they wrote; on a page read
    /// from its HTML alone (`lite`), a page with scripts may write its reason with them, and
    /// one without has none to give.
    static func reason(_ page: WebPage) -> String {
        if !page.alerts.isEmpty { return page.alerts.joined(separator: " / ") }
        if page.isRendered { return "the page shows no reason, after its scripts ran" }
        if page.scriptCount > 0 {
            return
                "no reason in the page's HTML; the page has scripts (\(page.scriptCount)), which may write it "
                + "(the lite engine runs none; --browser webkit reads what they write)"
        }
        return "no reason in the page"
    }

    /// A URL for messages: without its query, which may carry codes or tokens.
    public static func describe(_ url: String) -> String {
        URLParts.stripQueryAndFragment(url)
    }
}
