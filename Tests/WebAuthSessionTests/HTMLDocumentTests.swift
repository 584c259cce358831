import HTTPCore
import Testing
import WebAuthSession

@Suite("HTMLDocument")
struct HTMLDocumentTests {
    private static func parse(
        _ html: String, contentType: String? = "text/html; charset=utf-8",
        url: String = "https://issuer.test/u/login?x=1"
    ) throws -> HTMLDocument {
        try HTMLDocument(bytes: Array(html.utf8), contentType: contentType, url: url)
    }

    /// Title, method, action resolution, hidden, text and password inputs and the button's label.
    @Test("a login form: title, method, relative action, fields and button")
    func loginForm() throws {
        let document = try Self.parse(
            """
            <!DOCTYPE html><html><head><title> Sign
              in </title></head><body>
            <p class="form-error" role="alert">Wrong email or password.</p>
            <form method="POST" action="../u/login">
            <input type="hidden" name="csrf" value="t&amp;k"/>
            <input name="username" value="alice@example.com">
            <input type="password" name="password">
            <button>Continue</button>
            </form></body></html>
            """)
        #expect(document.title == "Sign in")
        #expect(document.errorMessages == ["Wrong email or password."])
        let form = try #require(document.forms.first)
        #expect(form.method == .post)
        #expect(form.action == "https://issuer.test/u/login")
        #expect(form.fields.map(\.name) == ["csrf", "username", "password"])
        #expect(form.field(named: "csrf")?.value == "t&k")
        #expect(form.field(named: "username")?.kind == .text)
        #expect(form.hasPasswordField)
        #expect(form.submitButtons == [HTMLSubmitButton(name: nil, value: "", label: "Continue", index: 0)])
        let entries = form.entries(
            filling: ["password": "pw", "csrf": "forged"], pressing: form.submitButtons.first)
        #expect(
            entries
                == FormParameters([("csrf", "t&k"), ("username", "alice@example.com"), ("password", "pw")]))
    }

    /// Unclosed tags, stray end tags, unquoted attributes and entities: libxml2 recovers.
    @Test("broken HTML and entities are recovered")
    func brokenHTML() throws {
        let document = try Self.parse(
            """
            <html><title>Caf&eacute; &amp; &#x263A;</title>
            <div><form action=/next method=post><input name=a value=1 type=hidden>
            <input name=b value="x &lt; y"></span></b>
            <textarea name=note>
            line &amp; more</textarea>
            <button type=submit name=go value=yes>Go <b>now</b>
            """)
        #expect(document.title == "Café & ☺")
        let form = try #require(document.forms.first)
        #expect(form.action == "https://issuer.test/next")
        #expect(form.method == .post)
        #expect(form.field(named: "a")?.value == "1")
        #expect(form.field(named: "b")?.value == "x < y")
        #expect(form.field(named: "note")?.value == "line & more")
        #expect(form.submitButtons.first?.label == "Go now")
        #expect(form.submitButtons.first?.value == "yes")
    }

    /// Only checked boxes and radios count; a select sends its selected option or its first;
    /// disabled controls and reset/button buttons are left out.
    @Test("checkbox, radio, select and disabled controls follow the entry list rules")
    func successfulControls() throws {
        let document = try Self.parse(
            """
            <form>
            <input type="checkbox" name="remember" checked>
            <input type="checkbox" name="spam" value="yes">
            <input type="radio" name="plan" value="free">
            <input type="radio" name="plan" value="pro" checked>
            <select name="country"><option value="fr">France</option><option selected>Chile</option></select>
            <select name="lang"><option disabled>None</option><option>en</option><option>de</option></select>
            <input name="off" value="1" disabled>
            <fieldset disabled><input name="fs" value="1"></fieldset>
            <input type="image" name="map"><input type="reset" name="r">
            <button type="button" name="b">B</button>
            <input type="submit" name="op" value="Save"><input type="submit">
            </form>
            """)
        let form = try #require(document.forms.first)
        #expect(form.method == .get)
        #expect(form.action == "https://issuer.test/u/login?x=1")
        #expect(
            form.entries()
                == FormParameters([("remember", "on"), ("plan", "pro"), ("country", "Chile"), ("lang", "en")])
        )
        #expect(form.submitButtons.map(\.label) == ["Save", "Submit"])
        #expect(form.field(named: "lang")?.options == ["en", "de"])
        // A select only takes a value it offers.
        #expect(form.entries(filling: ["lang": "de", "country": "xx"])["lang"] == "de")
        #expect(form.entries(filling: ["country": "xx"])["country"] == "Chile")
        // A GET submission replaces the action's query.
        let request = form.request(pressing: form.submitButtons.first)
        #expect(request.method == .get)
        #expect(
            request.url == "https://issuer.test/u/login?remember=on&plan=pro&country=Chile&lang=en&op=Save")
    }

    /// The pressed button's entry goes where the button stands; the others send nothing.
    @Test("only the pressed button is submitted, in tree order")
    func pressedButton() throws {
        let document = try Self.parse(
            """
            <form method="post" action="https://other.test/consent">
            <input type="hidden" name="transaction" value="t1">
            <button type="submit" name="action" value="approve">Accept</button>
            <button type="submit" name="action" value="deny">Decline</button>
            <input type="hidden" name="csrf" value="c1">
            </form>
            """)
        let form = try #require(document.forms.first)
        #expect(form.action == "https://other.test/consent")
        let deny = try #require(form.submitButtons.last)
        #expect(deny.mentions(any: ["decline"]))
        #expect(
            form.entries(pressing: deny)
                == FormParameters([("transaction", "t1"), ("action", "deny"), ("csrf", "c1")]))
        let request = form.request(pressing: deny)
        #expect(request.method == .post)
        #expect(request.mediaType == MediaType.formURLEncoded)
        #expect(String(decoding: request.body, as: UTF8.self) == "transaction=t1&action=deny&csrf=c1")
    }

    /// Charset from Content-Type, from a meta element, and UTF-8 by default.
    @Test("charset: Content-Type, meta, UTF-8 default")
    func charsets() throws {
        let latin1: [UInt8] =
            Array("<html><head><title>Caf".utf8) + [0xE9] + Array("</title></head></html>".utf8)
        let fromHeader = try HTMLDocument(
            bytes: latin1, contentType: "text/html; charset=ISO-8859-1", url: "https://a.test/")
        #expect(fromHeader.title == "Café")
        // The parameter name in any case, spaces and quotes around the value, an empty
        // `charset=` before it passed over. Greek, because libxml2 falls back to Latin-1 on
        // bytes that are not UTF-8: 0xE1 is "α" only if the header's charset was read.
        let greek: [UInt8] = Array("<title>".utf8) + [0xE1] + Array("</title>".utf8)
        let spelled = try HTMLDocument(
            bytes: greek, contentType: "text/html;charset=; CharSet = \"ISO-8859-7\" ", url: "https://a.test/"
        )
        #expect(spelled.title == "α")
        let meta: [UInt8] =
            Array("<html><head><meta charset=\"iso-8859-1\"><title>Caf".utf8) + [0xE9]
            + Array("</title></head></html>".utf8)
        #expect(
            try HTMLDocument(bytes: meta, contentType: "text/html", url: "https://a.test/").title == "Café")
        let utf8 = try Self.parse("<title>Café ☕</title>", contentType: nil)
        #expect(utf8.title == "Café ☕")
        // An encoding libxml2 does not know falls back to UTF-8 and meta detection.
        let bogus = try Self.parse("<title>Café</title>", contentType: "text/html; charset=\"x-bogus\"")
        #expect(bogus.title == "Café")
    }

    /// Errors come from role=alert and class*=error, once each, scripts ignored.
    @Test("error texts: role=alert, class containing error, not nested twice")
    func errorTexts() throws {
        let document = try Self.parse(
            """
            <body><div class="errors"><p class="error">Password   too
            short</p><script>var error = 1</script></div>
            <span role="ALERT">Account <b>locked</b></span><p class="hint">fine</p></body>
            """)
        #expect(document.errorMessages == ["Password too short", "Account locked"])
        #expect(document.forms.isEmpty)
    }

    /// The class match ignores ASCII case, and needs the whole word.
    @Test("error texts: class match ignores ASCII case")
    func errorClassIgnoresCase() throws {
        let document = try Self.parse(
            #"<body><p class="Form-ERROR">Try again</p><p class="err or">not this</p></body>"#)
        #expect(document.errorMessages == ["Try again"])
    }

    /// "Strip and collapse ASCII whitespace" (HTML §2.3.3): tab, LF, FF, CR and space only, as
    /// code points. A no-break space is text, and so is a combining mark after a space.
    @Test("visible text collapses ASCII whitespace only")
    func asciiWhitespace() throws {
        let document = try Self.parse(
            "<body>\t\r\n Café\u{0C}\r\n au\u{00A0}lait \u{0301}x <p class=\"error\">\n\tCrème \r\n brûlée\t</p></body>"
        )
        #expect(document.text == "Café au\u{00A0}lait \u{0301}x Crème brûlée")
        #expect(document.errorMessages == ["Crème brûlée"])
        let button = try Self.parse(
            "<form><input type=\" \tSUBMIT\n\" value=\"Go\"><input type=\"hidden \" name=h value=1></form>")
        #expect(button.forms.first?.submitButtons.map(\.label) == ["Go"])
        #expect(button.forms.first?.field(named: "h")?.kind == .hidden)
    }

    /// A 1 MiB page parses; a page over the limit is refused.
    @Test("a 1 MiB page parses; one over the limit is refused")
    func sizeLimits() throws {
        let filler = String(repeating: "<p>lorem ipsum dolor sit amet</p>\n", count: 1 << 20 / 34)
        let page =
            "<html><title>Big</title><body>\(filler)<form method=post action=/x>"
            + "<input name=k value=v></form></body></html>"
        #expect(page.utf8.count > 1 << 20 - 100)
        let document = try Self.parse(page)
        #expect(document.title == "Big")
        #expect(document.forms.first?.field(named: "k")?.value == "v")

        let tooBig = Array(repeating: UInt8(ascii: "a"), count: HTMLDocument.defaultMaximumSize + 1)
        let error = #expect(throws: HTMLDocumentError.self) {
            try HTMLDocument(bytes: tooBig, url: "https://a.test/")
        }
        #expect(error?.code == .tooLarge)
        #expect(throws: HTMLDocumentError.self) {
            try HTMLDocument(bytes: Array(page.utf8), url: "https://a.test/", maximumSize: 1000)
        }
    }

    /// An empty body is no document at all.
    @Test("an empty body is unreadable")
    func emptyBody() {
        let error = #expect(throws: HTMLDocumentError.self) {
            try HTMLDocument(bytes: [], url: "https://a.test/")
        }
        #expect(error?.code == .unreadable)
    }

    /// A button's label leaves out its script; a text area keeps only its own text; an option
    /// without a value sends its text; a select inside a select offers its options to both.
    @Test("labels, text areas and selects read from what is inside them")
    func controlsWithContent() throws {
        let document = try Self.parse(
            """
            <form id=f><button name=go>Go<script>track()</script> <b>now</b></button>
            <textarea name=t>
            l1<b>bold</b>l2</textarea>
            <select name=s><option value=1>One<select name=inner><option>Two</select></select>
            <select name=c><option> Chile <b>!</b></option></select></form>
            """)
        let form = try #require(document.forms.first)
        #expect(form.submitButtons == [HTMLSubmitButton(name: "go", value: "", label: "Go now", index: 0)])
        #expect(form.field(named: "t")?.value == "l1l2")
        #expect(form.field(named: "s")?.options == ["1", "Two"])
        #expect(form.field(named: "inner")?.value == "Two")
        #expect(form.field(named: "c")?.value == "Chile !")
        #expect(form.fields.map(\.name) == ["t", "s", "inner", "c"])
    }

    /// libxml2 opens a second `<html>` for markup after `</html>`; a browser puts it in the
    /// body, and its forms and errors are the page's.
    @Test("markup after </html> still counts", arguments: ["", "<!DOCTYPE html>"])
    func afterTheEnd(doctype: String) throws {
        let document = try Self.parse(
            doctype + "<html><head><title>T</title></head><body>a</body></html>"
                + "<p role=alert>late</p><form><input name=z value=1></form>")
        #expect(document.title == "T")
        #expect(document.errorMessages == ["late"])
        #expect(document.forms.first?.field(named: "z")?.value == "1")
    }

    /// Deep nesting from broken markup does not crash the walk.
    @Test("ten thousand unclosed divs")
    func deepNesting() throws {
        let page =
            "<title>Deep</title>" + String(repeating: "<div>", count: 10_000)
            + "<form><input name=deep value=1></form>"
        let document = try Self.parse(page)
        #expect(document.title == "Deep")
    }
}
