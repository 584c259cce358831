/// The style and the script of the HTML report, inline in every page.
enum HTMLReportAssets {
    /// Sizes in `rem` and wrapping tables and text, so the page reads at 200% zoom; the wide
    /// diagrams scroll inside their own box. Pass and fail carry a mark and a word as well as
    /// a colour, and the colours keep a contrast of at least 4.5:1 on white.
    static let style = """
        :root { font-family: system-ui, sans-serif; line-height: 1.4; color: #1b1b1b; }
        body { margin: 0 auto; padding: 1rem; max-width: 80rem; }
        h1 { font-size: 1.6rem; margin: 0.2rem 0; } h2 { font-size: 1.25rem; } h3 { font-size: 1.05rem; }
        code { font-family: ui-monospace, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 1rem; }
        .facts dt { font-weight: 600; } .facts dd { margin: 0; overflow-wrap: anywhere; }
        .filters { margin: 1rem 0; } .filters fieldset { display: inline; border: 1px solid #aaa; }
        .filters label { margin-right: 0.6rem; white-space: nowrap; }
        table { border-collapse: collapse; width: 100%; } caption { text-align: left; font-weight: 600; }
        th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid #ddd;
          overflow-wrap: anywhere; vertical-align: top; }
        .status, .duration { font-weight: 600; white-space: nowrap; } .duration { font-weight: normal; }
        .status.passed, li.passed > .outcome { color: #17692c; }
        .status.failed, li.failed > .outcome { color: #b3261e; }
        .status.skipped, .status.interrupted, li.skipped > .outcome { color: #5b5b5b; }
        .scenario { border-top: 2px solid #ccc; margin-top: 1.5rem; }
        .scenario.failed { border-top-color: #b3261e; }
        .file, .where, .note, .call { color: #4a4a4a; font-size: 0.9rem; }
        .failure { border: 2px solid #b3261e; border-radius: 4px; padding: 0.5rem 0.8rem; background: #fdf1f0; }
        .versus { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
        .versus dt { font-weight: 600; } .versus dd { margin: 0; font-family: ui-monospace, monospace;
          white-space: pre-wrap; overflow-wrap: anywhere; }
        .steps, .steps ol { padding-left: 1.4rem; } .steps li { margin: 0.1rem 0; }
        .outcome { font-weight: 600; }
        .diagram-wrap { overflow-x: auto; border: 1px solid #ddd; border-radius: 4px; }
        .diagram { font: 12px system-ui, sans-serif; display: block; }
        .diagram .lifeline line { stroke: #888; stroke-dasharray: 4 3; }
        .diagram .lifeline rect { fill: #eef2f7; stroke: #56677d; }
        .diagram .lifeline text { text-anchor: middle; font-weight: 600; fill: #1b1b1b; }
        .diagram .band rect { fill: #f7f7f7; stroke: #e0e0e0; }
        .diagram .sheet-page rect { fill: none; stroke: #8a8a8a; } .diagram .sheet-page.failed rect { stroke: #b3261e; stroke-width: 3; }
        ol.sheet { margin: .2rem 0 .2rem 1rem; font-size: .9em; } ol.sheet .engine { font-variant: small-caps; color: #4a4a4a; }
        ol.sheet ul.rules { margin: 0 0 0 1rem; color: #4a4a4a; }
        .diagram .band.failed rect { fill: #fdecea; stroke: #b3261e; stroke-width: 2; }
        .diagram .band-title { font-weight: 600; fill: #1b1b1b; } .diagram .band-sub { fill: #4a4a4a; }
        .diagram .arrow line { stroke: #1f4e8c; stroke-width: 1.5; marker-end: url(#arrowhead); }
        .diagram .arrow.response line { stroke-dasharray: 5 3; }
        .diagram .arrow.failed line { stroke: #b3261e; stroke-width: 2; marker-end: url(#arrowhead-failed); }
        .diagram .arrow text { text-anchor: middle; fill: #1b1b1b; }
        .diagram .arrow.failed text { fill: #b3261e; font-weight: 600; }
        .diagram .arrow.in-failed-step line { stroke-width: 2.5; } .diagram .arrow.in-failed-step text { font-weight: 700; }
        .diagram .arrow .hit { fill: transparent; }
        .diagram .arrow { cursor: pointer; }
        .diagram .arrow:focus { outline: none; } .diagram .arrow:focus .hit, .diagram .arrow.selected .hit {
          fill: #fff3b0; stroke: #6b5900; }
        .detail { border: 1px solid #ccc; border-radius: 4px; padding: 0.5rem 0.8rem; margin: 0.8rem 0; }
        .detail pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 0.4rem;
          max-height: 24rem; overflow: auto; }
        .detail table { font-size: 0.9rem; }
        .token { border-left: 4px solid #1f4e8c; padding-left: 0.6rem; margin: 0.6rem 0; }
        .matrix-wrap { overflow-x: auto; } .matrix td, .matrix th { text-align: center; white-space: nowrap; }
        .matrix td.exposed { color: #b3261e; font-weight: 600; } .matrix td.not_exposed { color: #17692c; }
        .matrix td.not_applicable { color: #5b5b5b; } .matrix .word { font-size: 0.75rem; }
        .diagram .arrow.diverges line { stroke: #8a4b00; stroke-width: 3; }
        .diagram .arrow.diverges text { fill: #8a4b00; font-weight: 700; }
        .sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(28rem, 1fr)); gap: 1rem; }
        .side { min-width: 0; }
        [hidden] { display: none !important; }
        """

    /// The filter and the exchange details. Data reaches the page through `textContent` only,
    /// never as markup, so nothing in a capture can run as script.
    static let script = """
        (function () {
          "use strict";
          var boxes = Array.prototype.slice.call(document.querySelectorAll("input[name=status]"));
          var tag = document.getElementById("tag");
          if (tag) { setUpFilter(); }
          function setUpFilter() {
            boxes.forEach(function (box) { box.addEventListener("change", filter); });
            tag.addEventListener("change", filter);
            filter();
          }
          function shows(element) {
            var statuses = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
            var tags = JSON.parse(element.getAttribute("data-tags") || "[]");
            return statuses.indexOf(element.getAttribute("data-status")) >= 0 &&
              (!tag.value || tags.indexOf(tag.value) >= 0);
          }
          function filter() {
            var shown = 0;
            document.querySelectorAll("#scenarios tbody tr, section.scenario").forEach(function (element) {
              var visible = shows(element);
              element.hidden = !visible;
              if (visible && element.tagName === "TR") { shown += 1; }
            });
            document.getElementById("shown").textContent = shown + " shown";
          }

          var bodies = JSON.parse(document.getElementById("data-bodies").textContent);
          var islands = {};
          function exchanges(index) {
            if (!islands[index]) {
              islands[index] = JSON.parse(document.getElementById("data-" + index).textContent).exchanges;
            }
            return islands[index];
          }
          function add(parent, name, text, className) {
            var element = document.createElement(name);
            if (text !== undefined && text !== null) { element.textContent = String(text); }
            if (className) { element.className = className; }
            parent.appendChild(element);
            return element;
          }
          function headerTable(parent, caption, headers) {
            if (!headers.length) { return; }
            var table = add(parent, "table");
            add(table, "caption", caption);
            var body = add(table, "tbody");
            headers.forEach(function (position) {
              var field = bodies[position], colon = field.indexOf(":");
              var row = add(body, "tr");
              add(row, "th", field.slice(0, colon)).scope = "row";
              add(row, "td", field.slice(colon + 2));
            });
          }
          function show(index, number, arrow) {
            var exchange = exchanges(index)[number];
            var panel = document.getElementById("detail-" + index);
            panel.textContent = "";
            add(panel, "h4", "Exchange " + (number + 1) + ": " + exchange.method + " " + exchange.url);
            add(panel, "p", "Sent by " + exchange.source + (exchange.app ? " (" + exchange.app + ")" : "") +
              " at " + exchange.started + " world time; " + (exchange.status === null ?
              "no answer: " + exchange.error : "answered " + exchange.status) + ".");
            headerTable(panel, "Request headers", exchange.requestHeaders);
            var requestBody = bodies[exchange.requestBody], responseBody = bodies[exchange.responseBody];
            if (requestBody) { add(panel, "h5", "Request body"); add(panel, "pre", requestBody); }
            headerTable(panel, "Response headers", exchange.responseHeaders);
            if (responseBody) { add(panel, "h5", "Response body"); add(panel, "pre", responseBody); }
            exchange.tokens.forEach(function (token) {
              var box = add(panel, "div", null, "token");
              add(box, "h5", "JWT in " + token.where);
              add(box, "p", token.verification, "verification");
              add(box, "pre", JSON.stringify(token.header, null, 2), "jwt-header");
              add(box, "pre", JSON.stringify(token.claims, null, 2), "jwt-claims");
              Object.keys(token.dates).forEach(function (name) {
                add(box, "p", name + ": " + token.dates[name], "jwt-date");
              });
            });
            document.querySelectorAll(".arrow.selected").forEach(function (a) { a.classList.remove("selected"); });
            arrow.closest("svg").querySelectorAll('.arrow[data-exchange="' + number + '"]').forEach(function (a) {
              a.classList.add("selected");
            });
          }
          document.querySelectorAll("svg.diagram .arrow").forEach(function (arrow) {
            var index = arrow.closest("svg").id.replace("diagram-", "");
            var number = Number(arrow.getAttribute("data-exchange"));
            arrow.addEventListener("click", function () { show(index, number, arrow); });
            arrow.addEventListener("keydown", function (event) {
              if (event.key === "Enter" || event.key === " ") { event.preventDefault(); show(index, number, arrow); }
            });
          });
        })();
        """
}
