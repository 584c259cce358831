public import HTTPCore
public import WorldVocabulary

/// How the person's script (``WebUserScript``) meets the forms of a page: what they type into
/// a login form, which button they press on a consent or sign-out form.
extension WebUserScript {
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
