"""The one reader of an HTML page for the interop helpers: its title, its forms and its error
notes. Each script reads the forms it needs from the same parse (interop_checks.forms_in,
providers/selftest.py forms_in, native_client.py directly)."""
from html.parser import HTMLParser

# <input> types that are pressed rather than filled in, and those a browser never submits.
SUBMIT_INPUTS = ("submit", "image")
UNSENT_INPUTS = ("button", "reset", "file")


class Page(HTMLParser):
    """The parts of an HTML page a browser user looks at: the title, the forms and the error
    notes (elements whose class says error or alert, or whose role is alert).

    Each form is a dict:
    - action: the attribute as written, None when absent; method: lower case, "get" by default;
    - controls: every <input>, <button>, <select> and <textarea> of the form in page order, each
      a dict with tag, name (None when absent), type (lower case; "text" for an <input> and
      "submit" for a <button> without one; "select", "textarea"), value ("" when absent; a
      select's chosen option, a textarea's text), checked (an <input>'s checked attribute;
      True for a select or textarea) and label (a button's text; a submit input's value);
    - inputs: the controls whose value the form submits when filled in: the <input>s except
      submit, image, button, reset and file ones, the selects and the textareas;
    - buttons: the submit buttons: <input type=submit|image> and <button type=submit>.
    A control after a </form> counts for the last form, one before any form for none.
    """

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.forms = []
        self.notes = []
        self._in_title = False
        self._note_depth = []  # stack of tags that opened an error note
        self._note_text = []
        self._button = None
        self._select = None
        self._textarea = None
        self.feed(html or "")
        self.close()

    @property
    def clean_title(self):
        return " ".join(self.title.split())

    def handle_starttag(self, tag, attrs):
        attrs = {name: (value if value is not None else "") for name, value in attrs}
        if tag == "title":
            self._in_title = True
        self._open_note(tag, attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action"), "method": attrs.get("method", "get").lower(),
                               "controls": [], "inputs": [], "buttons": []})
        elif self.forms:
            self._control(self.forms[-1], tag, attrs)

    def _open_note(self, tag, attrs):
        if self._note_depth:
            self._note_depth[-1][1] += 1 if tag == self._note_depth[-1][0] else 0
            return
        classes = attrs.get("class", "").lower()
        if ("error" in classes or "alert" in classes or attrs.get("role") == "alert") and tag not in ("input", "form"):
            self._note_depth.append([tag, 1])
            self._note_text = []

    def _control(self, form, tag, attrs):
        if tag == "option":
            if self._select is not None and (self._select["value"] is None or "selected" in attrs):
                self._select["value"] = attrs.get("value", "")
            return
        if tag not in ("input", "button", "select", "textarea"):
            return
        control = {"tag": tag, "name": attrs.get("name"), "type": tag, "value": attrs.get("value", ""),
                   "checked": True, "label": ""}
        form["controls"].append(control)
        if tag == "input":
            control["type"] = attrs.get("type", "text").lower()
            control["checked"] = "checked" in attrs
            control["label"] = control["value"]
            if control["type"] in SUBMIT_INPUTS:
                form["buttons"].append(control)
            elif control["type"] not in UNSENT_INPUTS:
                form["inputs"].append(control)
        elif tag == "button":
            control["type"] = attrs.get("type", "submit").lower()
            if control["type"] == "submit":
                self._button = control
                form["buttons"].append(control)
        elif tag == "select":
            control["value"] = None  # the first option, unless one says selected
            self._select = control
            form["inputs"].append(control)
        else:
            control["value"] = ""
            self._textarea = control
            form["inputs"].append(control)

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "button":
            self._button = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None
        if self._note_depth and tag == self._note_depth[-1][0]:
            self._note_depth[-1][1] -= 1
            if self._note_depth[-1][1] == 0:
                self._note_depth.pop()
                text = " ".join(" ".join(self._note_text).split())
                if text and text not in self.notes:
                    self.notes.append(text)

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._button is not None:
            self._button["label"] += data
        if self._textarea is not None:
            self._textarea["value"] += data
        if self._note_depth:
            self._note_text.append(data)
