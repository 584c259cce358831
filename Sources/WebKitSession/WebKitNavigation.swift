import Foundation
import HTTPCore
import Locking
import WebAuthSession
import WebKitHelperProtocol
import WorldVocabulary

/// One sheet in WebKit, from the first load to the callback: the engine navigates and runs the
/// pages' scripts; this loop rules on each navigation (the callback is stopped, never loaded),
/// reads the page when it has settled, lets the person act, and records every step.
///
/// A page has settled when its load finished and two readings in a row (`readingInterval`
/// apart) find it unchanged, or at once when it has no script (nothing can change it): a page
/// that renders its form late, by script, is read again until it shows one. The person waits at most `patience` for a page to offer what they came for,
/// and for a press to change anything.
struct WebKitNavigation {
    let session: WebAuthenticationSession
    var person: WebPerson
    let sheet: String
    let helper: WebKitHelperProcess
    let proxy: SheetProxy
    let handle: WebAuthenticationHandle
    let patience: Duration

    /// How often a loaded page is read while the person waits for it.
    static let readingInterval: Duration = .milliseconds(100)
    /// How long an unchanged page with nothing to do is given before the person gives up (a
    /// script may still be about to render it), and how many readings of it that must be at
    /// least: each reading runs in the page's own process, so on a machine busy enough to hold
    /// back the page's scripts the readings come slower too, and the wait grows with them.
    static let quietPeriod: Duration = .seconds(3)
    static let quietReadings = 12
    /// The width and JPEG quality of a screenshot: 220 pixels at 55 keep a page's text legible at
    /// about 8 KB, so the bundled library's HTML report with every picture stays under 10 MB
    /// (`scripts/interop/webkit.sh` checks it).
    static let screenshotWidth = 220
    static let screenshotQuality = 55

    private let inbox = SheetInbox()
    /// The main-frame request that led to what the sheet shows now.
    private var current: (method: HTTPMethod, url: String)
    private var redirectsInARow = 0
    private var committed = false
    private var loading = true
    /// A navigation was followed and its document has not replaced the page yet: what the page
    /// shows now is on its way out.
    private var navigating = true
    private var lastNavigation = ContinuousClock.now
    /// How many responses the proxy had relayed to the sheet when the last navigation was
    /// followed.
    private var answeredBeforeNavigation = 0
    private var fingerprint = 0
    private var unchangedReadings = 0
    private var lastChange = ContinuousClock.now
    /// After a press: the page as it was, until it changes.
    private var awaitingChange: (fingerprint: Int, since: ContinuousClock.Instant, button: String)?
    private var lastPage: WebPage?
    private var lastScreenshot: WebPageScreenshot?
    /// What the person answered to script dialogs since the last recorded step.
    private var dialogRules: [String] = []

    init(
        session: WebAuthenticationSession, person: WebPerson, sheet: String, helper: WebKitHelperProcess,
        proxy: SheetProxy, handle: WebAuthenticationHandle, patience: Duration
    ) {
        self.session = session
        self.person = person
        self.sheet = sheet
        self.helper = helper
        self.proxy = proxy
        self.handle = handle
        self.patience = patience
        current = (.get, session.url)
    }

    // MARK: The loop

    mutating func run() async -> Result<String, WebAuthenticationError>? {
        guard let parts = URLParts(session.url), parts.scheme == "http" || parts.scheme == "https" else {
            return .failure(
                WebAuthenticationError(
                    .invalidURL, "the start URL \"\(session.url.prefix(200))\" is not an http or https URL",
                    url: session.url))
        }
        if let interruption = person.user.interruption, interruption.point == .beforeLoad {
            return interrupt(interruption, page: nil)
        }
        let inbox = self.inbox
        let (helper, sheet, user, purpose) = (self.helper, self.sheet, person.user, person.purpose)
        helper.listen(to: sheet) { signal in
            // A script dialog blocks the page's scripts, and with them any reading of the page:
            // it is answered here, at once, not when the loop next looks.
            if case .event(.scriptDialog(_, let dialog, let kind, let message)) = signal {
                let accept = Self.answer(kind: kind, message: message, user: user, purpose: purpose)
                helper.post(.answerDialog(sheet: sheet, dialog: dialog, accept: accept))
            }
            inbox.append(signal)
        }
        helper.post(.load(sheet: sheet, url: session.url))
        lastNavigation = .now
        while !Task.isCancelled {
            for signal in inbox.drain() {
                if case .end(let outcome) = await handle(signal) { return outcome }
            }
            if committed, !navigating, !Task.isCancelled, case .end(let outcome) = await readAndAct() {
                return outcome
            }
            if case .end(let outcome) = stalledLoad() { return outcome }
            _ = await inbox.waitForSignal(until: .now + Self.readingInterval)
        }
        // Dismissed (cancel, deadline, the app killed): the session has its outcome already.
        return nil
    }

    /// What an event from the engine means for the sheet; an outcome when it ends it.
    private mutating func handle(_ signal: WebKitHelperProcess.SheetSignal) async -> LoopStep {
        switch signal {
        case .engineDied(let reason):
            return fail(
                .browserCrashed,
                "the WebKit engine crashed with the sheet up (\(reason))\(lastPageNote)", status: nil,
                screenshot: lastScreenshot)
        case .event(.webProcessTerminated(_, let reason)):
            return fail(
                .browserCrashed, "the sheet's web process \(reason)\(lastPageNote)", status: nil,
                screenshot: lastScreenshot)
        case .event(.navigation(_, let decision, let request)):
            return navigation(decision, request)
        case .event(.loadChanged(_, let phase, _)):
            switch phase {
            case .started:
                loading = true
            case .committed:
                committed = true
                loading = true
                navigating = false
                resetReadings()
            case .finished:
                loading = false
                navigating = false
            case .redirected:
                break
            }
            return .goOn
        case .event(.loadFailed(_, let url, let message, let interrupted)):
            guard !interrupted, !session.callback.matches(url) else {
                navigating = false
                return .goOn
            }
            let cause = proxy.failure(of: url, sheet: sheet) ?? message
            return fail(
                .network, "\(current.method) \(WebPerson.describe(url)) failed: \(cause)", status: nil,
                url: url)
        case .event(.closeRequested):
            record(status: nil, title: lastPage?.title, .closed)
            return .end(
                .failure(
                    WebAuthenticationError(
                        .canceledLogin, "the page on \(WebPerson.describe(current.url)) closed the sheet",
                        url: current.url)))
        case .event(.scriptDialog(_, _, let kind, let message)):
            let accept = Self.answer(kind: kind, message: message, user: person.user, purpose: person.purpose)
            dialogRules.append(
                "answered the \(kind) \"\(message.prefix(80))\" with \(accept ? "OK" : "Cancel")")
            return .goOn
        case .event(.ready):
            return .goOn
        }
    }

    /// Rules on a navigation: the callback is stopped and ends the sheet; http(s) is followed.
    private mutating func navigation(_ decision: UInt64, _ request: NavigationRequest) -> LoopStep {
        if session.callback.matches(request.url) {
            helper.post(.decide(sheet: sheet, decision: decision, verdict: .stop))
            if let refusal = consentNeverShown(callback: request.url) {
                return .end(fail(refusal, status: proxy.status(of: current.url, sheet: sheet)))
            }
            record(
                status: request.isRedirect ? proxy.status(of: current.url, sheet: sheet) : nil, title: nil,
                .reachedCallback)
            return .end(.success(request.url))
        }
        let scheme = URLParts(request.url)?.scheme ?? ""
        guard ["http", "https", "about", "data", "blob"].contains(scheme) else {
            helper.post(.decide(sheet: sheet, decision: decision, verdict: .stop))
            return fail(
                .foreignScheme,
                "\(WebPerson.describe(current.url)) navigated to the scheme \"\(scheme)\", which is neither "
                    + "http(s) nor the callback \(session.callback)", status: nil)
        }
        if request.newWindow {
            // A sheet has one window: what a page opens in a new one opens here.
            helper.post(.decide(sheet: sheet, decision: decision, verdict: .stop))
            helper.post(.load(sheet: sheet, url: request.url))
            return .goOn
        }
        guard scheme == "http" || scheme == "https" else {
            helper.post(.decide(sheet: sheet, decision: decision, verdict: .follow))
            return .goOn
        }
        if request.isRedirect {
            redirectsInARow += 1
            guard redirectsInARow <= session.limits.maximumRedirects else {
                helper.post(.decide(sheet: sheet, decision: decision, verdict: .stop))
                return fail(
                    .redirectLoop,
                    "more than \(session.limits.maximumRedirects) redirects in a row; the last from "
                        + "\(WebPerson.describe(current.url)) to \(WebPerson.describe(request.url))",
                    status: proxy.status(of: current.url, sheet: sheet))
            }
            record(
                status: proxy.status(of: current.url, sheet: sheet), title: nil,
                .followedRedirect(to: request.url))
        } else {
            redirectsInARow = 0
        }
        current = (HTTPMethod(rawValue: request.method), request.url)
        lastNavigation = .now
        answeredBeforeNavigation = proxy.answered(sheet: sheet)
        awaitingChange = nil
        navigating = true
        helper.post(.decide(sheet: sheet, decision: decision, verdict: .follow))
        return .goOn
    }

    /// Ends a sheet whose engine got the answer to the navigation it followed and showed no page
    /// for it within `patience` of that answer: the load stalled in the engine, or it dropped
    /// the answer (a 204, a download) with no page to go back to. The person has nothing to
    /// read and gives up, as they would on a blank sheet; a slow network is waited for as long
    /// as it takes, since the patience starts with the answer.
    private mutating func stalledLoad() -> LoopStep {
        guard navigating || !committed,
            let answer = proxy.answer(to: current.url, sheet: sheet, after: answeredBeforeNavigation),
            ContinuousClock.now - answer.at >= patience
        else { return .goOn }
        return fail(
            .timeout,
            "\(current.method) \(WebPerson.describe(current.url)) was answered \(answer.status), and WebKit "
                + "showed no page for it within \(patience)\(lastPageNote)", status: answer.status)
    }

    /// Reads the page and, once it has settled, lets the person act on it.
    private mutating func readAndAct() async -> LoopStep {
        guard var page = await read() else { return .goOn }
        let status = proxy.status(of: page.url, sheet: sheet)
        let print = noteReading(of: page)
        if let awaiting = awaitingChange {
            guard print == awaiting.fingerprint else {
                awaitingChange = nil
                return .goOn
            }
            guard ContinuousClock.now - awaiting.since < patience else {
                return await failWithPicture(
                    .unexpectedPage,
                    "pressing \"\(awaiting.button)\" on \(WebPerson.describe(page.url)) changed nothing within "
                        + "\(patience)", page: page, status: status)
            }
            return .goOn
        }
        // A page without scripts cannot change by itself once loaded: one reading is enough.
        let settled = !loading && (unchangedReadings >= 1 || page.scriptCount == 0)
        if let status, status >= 400, settled {
            let shown =
                page.alerts.isEmpty
                ? [page.title, String(page.text.prefix(200))].compactMap { $0 }
                    .filter { !$0.isEmpty }.joined(separator: " — ") : page.alerts.joined(separator: " / ")
            return await failWithPicture(
                .errorPage,
                "\(WebPerson.describe(page.url)) answered \(status) with an error page: "
                    + (shown.isEmpty ? "an empty page" : shown), page: page, status: status)
        }
        page.isRendered = true
        return await respond(
            to: person.move(on: page, status: status), on: page, status: status, settled: settled)
    }

    /// Fingerprints the page read and counts the readings it has stayed the same.
    /// - Returns: the fingerprint.
    private mutating func noteReading(of page: WebPage) -> Int {
        var hasher = Hasher()
        hasher.combine(page.forms)
        hasher.combine(page.alerts)
        hasher.combine(page.url)
        hasher.combine(page.text)
        let print = hasher.finalize()
        if print != fingerprint {
            fingerprint = print
            unchangedReadings = 0
            lastChange = .now
        } else {
            unchangedReadings += 1
        }
        lastPage = page
        handle.notePageRead()
        return print
    }

    /// Carries out the person's move on a rendered page, once the page has settled enough for
    /// that move.
    private mutating func respond(
        to move: WebPerson.Move, on page: WebPage, status: Int?, settled: Bool
    ) async -> LoopStep {
        switch move {
        case .act(let act):
            guard settled || (unchangedReadings >= 1 && ContinuousClock.now - lastNavigation > .seconds(2))
            else {
                return .goOn
            }
            if let limit = person.submissionLimitReached(on: page, status: status) {
                return await failWithPicture(limit.code, limit.message, page: page, status: status)
            }
            return await perform(act, on: page, status: status)
        case .interrupt(let interruption):
            guard settled else { return .goOn }
            return .end(interrupt(interruption, page: page))
        case .close:
            guard !loading, unchangedReadings >= 3 else { return .goOn }
            record(status: status, title: page.title, .closed)
            return .end(
                .failure(
                    WebAuthenticationError(
                        .canceledLogin,
                        "the person closed the sheet on \(WebPerson.describe(page.url)) "
                            + "\"\(page.title ?? "an untitled page")\": the issuer showed its own page "
                            + "and did not redirect back to the app", url: page.url, status: status)))
        case .nothingToDo(let error):
            let now = ContinuousClock.now
            if !loading, now - lastChange >= Self.quietPeriod, unchangedReadings >= Self.quietReadings {
                return await failWithPicture(error.code, error.message, page: page, status: status)
            }
            if now - lastNavigation >= patience {
                return await failWithPicture(
                    .timeout,
                    "\(WebPerson.describe(page.url)) did not settle into a page the person can act on "
                        + "within \(patience): \(error.message)", page: page, status: status)
            }
            return .goOn
        case .fail(let error):
            guard settled else { return .goOn }
            // A refused login's reason may be written by script a moment after the page is up
            // (a timer, an answer to fetch): the page gets the quiet period to show one before
            // the report says it shows none.
            let now = ContinuousClock.now
            if error.code == .loginRejected, page.alerts.isEmpty, now - lastNavigation < patience,
                now - lastChange < Self.quietPeriod || unchangedReadings < Self.quietReadings
            {
                return .goOn
            }
            return await failWithPicture(error.code, error.message, page: page, status: status)
        }
    }

    /// Types, takes the picture, presses.
    private mutating func perform(_ act: WebPerson.WebPageAct, on page: WebPage, status: Int?) async
        -> LoopStep
    {
        let fills = act.fills.map { (ref: $0.field.ref, value: $0.value) }
        if !fills.isEmpty, !(await evaluateAct(PageScripts.act(fills: fills, press: nil, submitForm: false)))
        {
            return .goOn
        }
        let picture = await screenshot()
        record(
            status: status, title: page.title, act.action, rules: dialogRules + act.rules, screenshot: picture
        )
        dialogRules = []
        person.performed(act)
        let pressed = await evaluateAct(
            PageScripts.act(fills: [], press: act.press?.ref, submitForm: act.press == nil && !fills.isEmpty))
        guard pressed else { return .goOn }
        awaitingChange = (fingerprint, .now, act.press?.displayName ?? "Enter")
        return .goOn
    }

    private func evaluateAct(_ script: String) async -> Bool {
        guard case .json(let text) = try? await helper.request(.evaluate(sheet: sheet, script: script)) else {
            return false
        }
        return text.contains("\"ok\":true")
    }

    // MARK: Reading the page

    private func read() async -> WebPage? {
        let script = PageScripts.read(overrides: person.user.overrides)
        guard case .json(let text) = try? await helper.request(.evaluate(sheet: sheet, script: script)),
            let reading = try? JSONDecoder().decode(PageReading.self, from: Data(text.utf8)),
            reading.url != "about:blank"
        else { return nil }
        return reading.page
    }

    private func screenshot() async -> WebPageScreenshot? {
        guard
            case .image(let jpeg, let width, let height) = try? await helper.request(
                .snapshot(sheet: sheet, maximumWidth: Self.screenshotWidth, quality: Self.screenshotQuality))
        else { return nil }
        let picture = WebPageScreenshot(jpeg: Array(jpeg), width: width, height: height)
        return picture
    }

    // MARK: Endings

    private func consentNeverShown(callback location: String) -> WebAuthenticationError? {
        guard person.user.consent == .deny, !person.answeredConsent else { return nil }
        if let query = try? URLParts.queryParameters(of: location), query["error"] != nil { return nil }
        return WebAuthenticationError(
            .consentNotShown,
            "the user was to deny consent, but \(WebPerson.describe(current.url)) sent the sheet to the callback "
                + "with a code and no consent page was shown (the issuer skips consent for this client or "
                + "remembers an earlier one); nothing was denied", url: current.url)
    }

    /// How the person answers a script dialog: OK to an alert, to a leave-page question and to a
    /// confirmation (signing out, or going on), Cancel to a prompt and to a confirmation that
    /// would approve what they are to refuse.
    static func answer(
        kind: String, message: String, user: WebUserScript, purpose: WebAuthenticationSession.Purpose
    ) -> Bool {
        switch kind {
        case "prompt": return false
        case "confirm":
            let lowered = message.lowercased()
            if purpose == .signOut { return true }
            if user.consent == .deny, WebUserScript.approveWords.contains(where: lowered.contains) {
                return false
            }
            return true
        default: return true
        }
    }

    private mutating func interrupt(_ interruption: WebUserScript.Interruption, page: WebPage?) -> Result<
        String, WebAuthenticationError
    >? {
        switch interruption {
        case .cancel(let point):
            record(status: nil, title: page?.title, .canceled)
            return .failure(
                WebAuthenticationError(
                    .canceledLogin, "the user cancelled the sheet (\(point.rawValue))",
                    url: page?.url ?? current.url))
        case .abandon:
            record(status: nil, title: page?.title, .abandoned)
            return nil
        }
    }

    private var lastPageNote: String {
        guard let page = lastPage else { return "; no page had loaded" }
        return "; last page \(WebPerson.describe(page.url)) \"\(page.title ?? "untitled")\""
    }

    private mutating func fail(
        _ code: WebAuthenticationError.Code, _ message: String, status: Int?, url: String? = nil,
        screenshot: WebPageScreenshot? = nil
    ) -> LoopStep {
        .end(
            fail(
                WebAuthenticationError(code, message, url: url ?? current.url, status: status),
                status: status,
                screenshot: screenshot))
    }

    private mutating func fail(
        _ error: WebAuthenticationError, status: Int?, screenshot: WebPageScreenshot? = nil
    ) -> Result<String, WebAuthenticationError> {
        record(status: status, title: lastPage?.title, .failed(error.code), screenshot: screenshot)
        return .failure(error)
    }

    private mutating func failWithPicture(
        _ code: WebAuthenticationError.Code, _ message: String, page: WebPage, status: Int?
    ) async -> LoopStep {
        let picture = await screenshot()
        lastScreenshot = picture ?? lastScreenshot
        let error = WebAuthenticationError(code, message, url: page.url, status: status)
        record(status: status, title: page.title, .failed(code), screenshot: picture, url: page.url)
        return .end(.failure(error))
    }

    private mutating func resetReadings() {
        fingerprint = 0
        unchangedReadings = 0
        lastChange = .now
    }

    private mutating func record(
        status: Int?, title: String?, _ action: WebPageVisit.Action, rules: [String] = [],
        screenshot: WebPageScreenshot? = nil, url: String? = nil
    ) {
        if let screenshot { lastScreenshot = screenshot }
        handle.record(
            WebPageVisit(
                method: current.method, url: url ?? current.url, status: status, title: title, action: action,
                rules: rules, screenshot: screenshot))
    }
}

/// What the loop does after a step: go on, or end the sheet (`nil`: walked away from).
enum LoopStep {
    case goOn
    case end(Result<String, WebAuthenticationError>?)
}

/// Signals from the engine for one sheet, queued until the loop takes them.
final class SheetInbox: Sendable {
    private let queue = Mutex<[WebKitHelperProcess.SheetSignal]>([])
    private let signal = ChangeSignal()

    func append(_ item: WebKitHelperProcess.SheetSignal) {
        queue.withLock { $0.append(item) }
        signal.notify()
    }

    func drain() -> [WebKitHelperProcess.SheetSignal] {
        queue.withLock { queue in
            defer { queue = [] }
            return queue
        }
    }

    /// Waits until something arrives or `deadline` passes.
    func waitForSignal(until deadline: ContinuousClock.Instant) async -> Bool {
        await signal.wait(until: { queue.withLock { !$0.isEmpty } }, deadline: deadline)
    }
}

/// What ``PageScripts/read(overrides:)`` returns.
private struct PageReading: Decodable {
    struct Form: Decodable {
        var index: Int
        var fields: [Field]
        var buttons: [Button]
    }

    struct Field: Decodable {
        var ref: Int
        var name: String
        var id: String?
        var kind: String
        var inputType: String?
        var autocomplete: String?
        var label: String?
        var isVisible: Bool
        var isChecked: Bool
    }

    struct Button: Decodable {
        var ref: Int
        var name: String?
        var value: String
        var label: String
    }

    struct Override: Decodable {
        var override: Int
        var form: Int
        var ref: Int
    }

    var url: String
    var title: String?
    var forms: [Form]
    var alerts: [String]
    var text: String
    var scriptCount: Int
    var overrides: [Override]

    var page: WebPage {
        WebPage(
            url: url, title: title,
            forms: forms.map { form in
                WebPageForm(
                    index: form.index,
                    fields: form.fields.map { field in
                        WebPageField(
                            ref: field.ref, name: field.name, id: field.id,
                            kind: HTMLFormField.Kind(rawValue: field.kind) ?? .text,
                            inputType: field.inputType,
                            autocomplete: field.autocomplete, label: field.label, isVisible: field.isVisible,
                            isChecked: field.isChecked)
                    },
                    buttons: form.buttons.map {
                        WebPageButton(ref: $0.ref, name: $0.name, value: $0.value, label: $0.label)
                    })
            },
            alerts: alerts, text: text, scriptCount: scriptCount, isRendered: true,
            overrideMatches: overrides.map {
                WebPageOverrideMatch(override: $0.override, form: $0.form, ref: $0.ref)
            })
    }
}
