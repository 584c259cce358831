import HTTPCore
import JSON

/// The issuer's pages in the `javascript` style (`LoginPageStyle.javascript`): an empty shell,
/// the data the page needs, and an inline script that renders the form, as Okta's Sign-In
/// Widget, Auth0 Lock and Glewlwyd serve theirs.
///
/// The HTML sent has no form and no input: a user agent that does not run scripts sees
/// "Loading…" and nothing to submit. Each page is still well-formed XML, as `LoginPages` are:
/// the data is JSON in `<script type="application/json" id="page-data">` with `<`, `>` and `&`
/// written as `\u003c`, `\u003e` and `\u0026` (so no value can close the element or start
/// markup, and the JSON parses to the values sent), and the scripts contain neither `<` nor
/// `&`. The scripts build the DOM with `createElement` and text nodes, never from markup. The
/// executable script carries the nonce of the page's `Content-Security-Policy` (CSP Level 3
/// §6.7.2.3, `nonce-source`). docs/issuer.md ("Pages that need JavaScript") describes what
/// each script renders.
enum ScriptedLoginPages {
    /// The login page, identifier first: an email and "Next", then (150 ms later) the password
    /// and "Sign in", posted to `POST /u/login` with `fetch` and `Accept: application/json`.
    /// `error` is the last attempt's, shown by the script at the password step.
    static func login(
        clientName: String, binding: LoginPages.FormBinding, username: String?, error: String?, nonce: String
    ) -> String {
        let data: JSONValue = [
            "action": .string(Issuer.Path.login), "clientName": .string(clientName),
            "transaction": .string(binding.transactionID), "csrf": .string(binding.csrfToken),
            "username": .string(username ?? ""), "error": error.map(JSONValue.string) ?? .null,
        ]
        return shell(title: "Sign in", data: data, script: loginScript, nonce: nonce)
    }

    /// The consent page: the scopes, "Allow" and "Refuse". The form's hidden `action` says
    /// `approve` as rendered; only Refuse's click handler makes it `deny`.
    static func consent(
        clientName: String, userLabel: String, scopes: [LoginPages.ScopeLine],
        binding: LoginPages.FormBinding, nonce: String
    ) -> String {
        let lines = scopes.map { line -> JSONValue in
            ["scope": .string(line.scope), "explanation": .string(line.explanation)]
        }
        let data: JSONValue = [
            "action": .string(Issuer.Path.consent), "clientName": .string(clientName),
            "userLabel": .string(userLabel), "scopes": .array(lines),
            "transaction": .string(binding.transactionID), "csrf": .string(binding.csrfToken),
        ]
        return shell(title: "Authorize \(clientName)", data: data, script: consentScript, nonce: nonce)
    }

    /// The logout question: "Yes" posts the request's parameters back with `logout=yes`; "No"
    /// goes to `declineLocation`, or says the user is still signed in.
    static func logoutQuestion(_ question: LoginPages.LogoutQuestion, nonce: String) -> String {
        let parameters = question.parameters.map { pair -> JSONValue in
            ["name": .string(pair.name), "value": .string(pair.value)]
        }
        let data: JSONValue = [
            "action": .string(Issuer.Path.logout), "parameters": .array(parameters),
            "declineLocation": question.declineLocation.map(JSONValue.string) ?? .null,
        ]
        return shell(title: "Sign out", data: data, script: logoutScript, nonce: nonce)
    }

    /// The `Content-Security-Policy` of a scripted page: the HTML pages' policy, plus the one
    /// inline script with this nonce and `fetch` to the issuer itself (CSP Level 3 §6.1.1,
    /// §6.1.9).
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "base-uri 'none'; frame-ancestors 'none'"
    }

    /// JSON text that can stand inside a `<script>` element of an HTML page that is also XML:
    /// `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes, and so are the characters XML 1.0 does
    /// not allow (`HTMLText.isAllowed`); inside JSON strings, where alone they can occur in
    /// serialised JSON, the escapes stand for the same characters.
    static func scriptData(_ value: JSONValue) -> String {
        var text = ""
        for scalar in value.serializedString().unicodeScalars {
            switch scalar {
            case "<", ">", "&", "\u{2028}", "\u{2029}": text += unicodeEscape(scalar)
            default:
                if HTMLText.isAllowed(scalar) {
                    text.unicodeScalars.append(scalar)
                } else {
                    text += unicodeEscape(scalar)
                }
            }
        }
        return text
    }

    /// `\uXXXX`, or a surrogate pair of them beyond the Basic Multilingual Plane (RFC 8259 §7).
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        func hex(_ unit: UInt32) -> String {
            let digits = String(unit, radix: 16)
            return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
        guard scalar.value > 0xFFFF else { return hex(scalar.value) }
        let offset = scalar.value - 0x10000
        return hex(0xD800 + (offset >> 10)) + hex(0xDC00 + (offset & 0x3FF))
    }

    private static func shell(title: String, data: JSONValue, script: String, nonce: String) -> String {
        LoginPages.document(
            title: title,
            body: """
                <div id="app">Loading…</div>
                <noscript><p class="status">This page needs JavaScript.</p></noscript>
                <script type="application/json" id="page-data">\(scriptData(data))</script>
                <script nonce="\(HTMLText.escape(nonce))">
                \(prelude)

                \(script)
                </script>
                """)
    }

    // MARK: - Scripts (no "<" and no "&": the pages must stay well-formed XML)

    /// What every page's script starts with: its data, its root, and a way to build elements.
    static let prelude = #"""
        "use strict";
        const data = JSON.parse(document.getElementById("page-data").textContent);
        const app = document.getElementById("app");

        // An element with attributes and children; strings become text nodes, never markup.
        function element(tag, attributes, ...children) {
          const node = document.createElement(tag);
          for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
          node.append(...children);
          return node;
        }

        function show(...nodes) {
          app.replaceChildren(...nodes);
        }
        """#

    /// Identifier first, as Okta's Sign-In Widget: the email, then the password.
    static let loginScript = #"""
        let username = data.username;

        function heading() {
          return [
            element("h1", {}, "Sign in"),
            element("p", {class: "client"}, "to continue to ", element("strong", {}, data.clientName)),
          ];
        }

        // Step 1: who signs in.
        function identifierStep(message) {
          const alert = element("div", {id: "error", class: "error", role: "alert"}, message);
          const input = element("input", {
            id: "username", type: "text", inputmode: "email", name: "username",
            autocomplete: "username", required: "required",
          });
          input.value = username;
          const next = element("button", {type: "submit", id: "next"}, "Next");
          const form = element("form", {id: "identifier-form"},
            element("label", {for: "username"}, "Email"), input, next);
          form.addEventListener("submit", (event) => {
            event.preventDefault();
            if (input.value === "") {
              alert.textContent = "Enter your email.";
              input.focus();
              return;
            }
            username = input.value;
            next.disabled = true;
            // A widget renders its next step late: a browser must wait for the password field.
            setTimeout(() => passwordStep(""), 150);
          });
          show(...heading(), alert, form);
          input.focus();
        }

        // Step 2: the password, posted with fetch; the answer says where to go or what is wrong.
        function passwordStep(message) {
          const alert = element("div", {id: "error", class: "error", role: "alert"}, message);
          const password = element("input", {
            id: "password", type: "password", name: "password",
            autocomplete: "current-password", required: "required",
          });
          const signIn = element("button", {type: "submit", id: "sign-in"}, "Sign in");
          const change = element("button", {type: "button", id: "change-user"}, "Not you?");
          change.addEventListener("click", () => identifierStep(""));
          const form = element("form", {id: "password-form"},
            element("label", {for: "password"}, "Password"), password, signIn);
          form.addEventListener("submit", async (event) => {
            event.preventDefault();
            alert.textContent = "";
            signIn.disabled = true;
            const body = new URLSearchParams({
              transaction: data.transaction, csrf: data.csrf, username: username, password: password.value,
            });
            try {
              const response = await fetch(data.action, {
                method: "POST", headers: {"Accept": "application/json"}, body: body,
                credentials: "same-origin",
              });
              const answer = await response.json();
              if (typeof answer.location === "string") {
                window.location.assign(answer.location);
                return;
              }
              alert.textContent = typeof answer.error === "string" ? answer.error : "Sign-in failed.";
            } catch (failure) {
              alert.textContent = "The sign-in service did not answer. Try again.";
            }
            password.value = "";
            signIn.disabled = false;
            password.focus();
          });
          show(...heading(),
            element("p", {class: "user"}, "Signing in as ", element("strong", {}, username), " ", change),
            alert, form);
          password.focus();
        }

        if (data.error === null) {
          identifierStep("");
        } else if (username === "") {
          identifierStep(data.error);
        } else {
          passwordStep(data.error);
        }
        """#

    /// Allow submits the form as rendered (`action=approve`); Refuse needs this script.
    static let consentScript = #"""
        const decision = element("input", {type: "hidden", name: "action", value: "approve"});
        const refuse = element("button", {type: "button", id: "refuse"}, "Refuse");
        const form = element("form", {id: "consent-form", method: "post", action: data.action},
          element("input", {type: "hidden", name: "transaction", value: data.transaction}),
          element("input", {type: "hidden", name: "csrf", value: data.csrf}),
          decision,
          element("button", {type: "submit", id: "allow"}, "Allow"),
          refuse);
        // As at issuers whose decline button works only with JavaScript: a client that submits
        // the form without running this approves.
        refuse.addEventListener("click", () => {
          decision.value = "deny";
          form.submit();
        });
        show(
          element("h1", {}, "Authorize ", data.clientName),
          element("p", {class: "user"}, "Signed in as ", element("strong", {}, data.userLabel)),
          element("p", {}, element("strong", {}, data.clientName), " is asking to:"),
          element("ul", {class: "scopes"}, ...data.scopes.map((line) =>
            element("li", {}, element("code", {}, line.scope), " ", line.explanation))),
          form);
        """#

    /// Yes posts the request back with `logout=yes`; No keeps the session.
    static let logoutScript = #"""
        const yes = element("button", {type: "button", id: "logout-yes"}, "Yes");
        const no = element("button", {type: "button", id: "logout-no"}, "No");
        const form = element("form", {id: "logout-form", method: "post", action: data.action},
          ...data.parameters.map((parameter) =>
            element("input", {type: "hidden", name: parameter.name, value: parameter.value})),
          yes, no);
        yes.addEventListener("click", () => {
          yes.disabled = true;
          form.append(element("input", {type: "hidden", name: "logout", value: "yes"}));
          form.submit();
        });
        no.addEventListener("click", () => {
          if (typeof data.declineLocation === "string") {
            window.location.assign(data.declineLocation);
            return;
          }
          show(element("h1", {}, "Sign out"),
            element("p", {class: "status", role: "status"}, "You are still signed in."));
        });
        show(element("h1", {}, "Sign out"), element("p", {}, "Do you want to log out?"), form);
        """#
}
