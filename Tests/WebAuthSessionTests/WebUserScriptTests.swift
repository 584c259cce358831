import HTTPCore
import Testing
import WebAuthSession
import WorldVocabulary

@Suite("WebUserScript")
struct WebUserScriptTests {
    private static func form(_ inputs: String) throws -> HTMLForm {
        let html =
            "<html><body><form method=post action=/login>\(inputs)<button>Sign In</button></form></body></html>"
        let document = try HTMLDocument(
            bytes: Array(html.utf8), contentType: "text/html", url: "https://issuer.test/login")
        return try #require(document.forms.first)
    }

    private static let alice = WebUserScript.signIn(username: "alice", password: "secret")

    /// django-allauth names its username input `login`: the username goes where a person types it.
    @Test("a username input named otherwise gets the username: the text input before the password")
    func usernameMovesToTheFormsUsernameInput() throws {
        let form = try Self.form(
            """
            <input type=hidden name=csrfmiddlewaretoken value=t>
            <input type=text name=login autocomplete=username>
            <input type=password name=password>
            <input type=checkbox name=remember>
            """)
        let typed = Self.alice.typing(into: form, attempt: 0)
        #expect(typed["login"] == "alice")
        #expect(typed["username"] == nil)
        #expect(typed["password"] == "secret")
        let entries = form.entries(filling: typed, pressing: form.submitButtons.first)
        #expect(entries["login"] == "alice")
        #expect(entries["csrfmiddlewaretoken"] == "t")
    }

    @Test("a form with the named input is filled by name only")
    func namedInputWins() throws {
        let form = try Self.form(
            "<input name=search><input name=username><input type=password name=password>")
        let typed = Self.alice.typing(into: form, attempt: 0)
        #expect(typed["username"] == "alice")
        #expect(typed["search"] == nil)
    }

    @Test("the slot is the last text input before the first password input, never one after it")
    func slotBeforeThePassword() throws {
        let form = try Self.form(
            """
            <input name=organisation><input type=email name=email>
            <input type=password name=password><input name=otp>
            """)
        let typed = Self.alice.typing(into: form, attempt: 0)
        #expect(typed["email"] == "alice")
        #expect(typed["organisation"] == nil)
        #expect(typed["otp"] == nil)
    }

    @Test("no password input, or no username given: nothing moves")
    func nothingToMove() throws {
        let noPassword = try Self.form("<input name=login>")
        #expect(Self.alice.typing(into: noPassword, attempt: 0)["login"] == nil)
        let script = WebUserScript(fields: ["username": "alice", "password": "secret"])
        let form = try Self.form("<input name=login><input type=password name=password>")
        #expect(script.typing(into: form, attempt: 0)["login"] == nil)
    }

    @Test("a retry's changed username goes to the same slot")
    func retryUsesTheSlot() throws {
        var script = Self.alice
        script.retries = [["username": "bob"]]
        let form = try Self.form("<input name=login><input type=password name=password>")
        #expect(script.typing(into: form, attempt: 1)["login"] == "bob")
    }
}
