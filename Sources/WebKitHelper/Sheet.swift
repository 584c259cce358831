import CWebKitGTK
import Foundation
import WebKitHelperProtocol

/// One sheet: a web view in a window of its own, and the questions it waits on (navigations,
/// script dialogs) until the driver answers them.
final class Sheet {
    let name: String
    unowned let host: HelperHost
    /// Kept as long as the view: a view must not outlive its network session.
    let store: BrowserStore
    private let view: UnsafeMutablePointer<WebKitWebView>
    private let window: UnsafeMutablePointer<GtkWindow>
    private var decisions: [UInt64: UnsafeMutablePointer<WebKitPolicyDecision>] = [:]
    private var dialogs: [UInt64: OpaquePointer] = [:]
    private var closed = false

    init(name: String, host: HelperHost, store: BrowserStore, userAgent: String, width: Int, height: Int) {
        self.name = name
        self.host = host
        self.store = store
        let settings = webkit_settings_new()
        webkit_settings_set_user_agent(settings, userAgent)
        webkit_settings_set_hardware_acceleration_policy(settings, WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER)
        webkit_settings_set_javascript_can_open_windows_automatically(settings, 0)
        view = signinsim_web_view_new(store.session, settings)
        g_object_unref(UnsafeMutableRawPointer(settings))
        // Our own reference: the window's goes when the window is destroyed.
        g_object_ref_sink(view)
        window = signinsim_window(gtk_window_new())
        gtk_window_set_default_size(window, Int32(width), Int32(height))
        gtk_window_set_child(window, signinsim_widget(view))
        gtk_window_present(window)
        connectSignals()
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ data: UnsafeMutableRawPointer?) -> Sheet? {
        data.map { Unmanaged<Sheet>.fromOpaque($0).takeUnretainedValue() }
    }

    private func connectSignals() {
        signinsim_on_decide_policy(
            view,
            { _, decision, type, data in
                guard let sheet = Sheet.from(data), let decision else { return 0 }
                return sheet.decidePolicy(decision, type) ? 1 : 0
            }, context)
        signinsim_on_load_changed(
            view,
            { _, event, data in
                Sheet.from(data)?.loadChanged(event)
            }, context)
        signinsim_on_load_failed(
            view,
            { _, _, uri, error, data in
                guard let sheet = Sheet.from(data) else { return 0 }
                let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                let interrupted =
                    error.map {
                        $0.pointee.domain == webkit_policy_error_quark()
                            || ($0.pointee.domain == webkit_network_error_quark()
                                && $0.pointee.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue))
                    } ?? false
                sheet.host.send(
                    .event(
                        .loadFailed(
                            sheet: sheet.name, url: uri.map { String(cString: $0) } ?? "", message: message,
                            interrupted: interrupted)))
                // WebKit shows its own error page, as Safari would.
                return 0
            }, context)
        signinsim_on_web_process_terminated(
            view,
            { _, reason, data in
                guard let sheet = Sheet.from(data) else { return }
                let text =
                    switch reason {
                    case WEBKIT_WEB_PROCESS_CRASHED: "crashed"
                    case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "exceeded its memory limit"
                    default: "was terminated"
                    }
                sheet.host.send(.event(.webProcessTerminated(sheet: sheet.name, reason: text)))
            }, context)
        signinsim_on_close(
            view,
            { _, data in
                guard let sheet = Sheet.from(data) else { return }
                sheet.host.send(.event(.closeRequested(sheet: sheet.name)))
            }, context)
        signinsim_on_script_dialog(
            view,
            { _, dialog, data in
                guard let sheet = Sheet.from(data), let dialog else { return 0 }
                return sheet.scriptDialog(dialog) ? 1 : 0
            }, context)
        signinsim_on_permission_request(
            view,
            { _, request, _ in
                // A sign-in sheet grants no camera, location or notification.
                webkit_permission_request_deny(request)
                return 1
            }, context)
        signinsim_on_create(view, { _, _, _ in nil }, context)
        signinsim_on_authenticate(
            view,
            { _, request, _ in
                // HTTP authentication dialogs are not part of a scripted sign-in.
                webkit_authentication_request_cancel(request)
                return 1
            }, context)
    }

    // MARK: Navigation

    func load(_ url: String) {
        webkit_web_view_load_uri(view, url)
    }

    /// Holds navigations until the driver rules on them; everything else as WebKit would.
    private func decidePolicy(
        _ decision: UnsafeMutablePointer<WebKitPolicyDecision>, _ type: WebKitPolicyDecisionType
    ) -> Bool {
        guard
            type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION
                || type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION
        else { return false }
        guard
            let action = webkit_navigation_policy_decision_get_navigation_action(
                signinsim_navigation_decision(decision)),
            let request = webkit_navigation_action_get_request(action)
        else { return false }
        let url = webkit_uri_request_get_uri(request).map { String(cString: $0) } ?? ""
        let method = webkit_uri_request_get_http_method(request).map { String(cString: $0) } ?? "GET"
        let kind =
            switch webkit_navigation_action_get_navigation_type(action) {
            case WEBKIT_NAVIGATION_TYPE_LINK_CLICKED: "link"
            case WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED: "form"
            case WEBKIT_NAVIGATION_TYPE_BACK_FORWARD: "back-forward"
            case WEBKIT_NAVIGATION_TYPE_RELOAD: "reload"
            case WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED: "form-resubmit"
            default: "other"
            }
        let token = host.token()
        signinsim_object_ref(decision)
        decisions[token] = decision
        host.send(
            .event(
                .navigation(
                    sheet: name, decision: token,
                    request: NavigationRequest(
                        url: url, method: method,
                        isRedirect: webkit_navigation_action_is_redirect(action) != 0,
                        kind: kind, newWindow: type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION))))
        return true
    }

    func decide(_ token: UInt64, _ verdict: NavigationVerdict) {
        guard let decision = decisions.removeValue(forKey: token) else { return }
        switch verdict {
        case .follow: webkit_policy_decision_use(decision)
        case .stop: webkit_policy_decision_ignore(decision)
        }
        signinsim_object_unref(decision)
    }

    private func loadChanged(_ event: WebKitLoadEvent) {
        let phase: LoadPhase =
            switch event {
            case WEBKIT_LOAD_STARTED: .started
            case WEBKIT_LOAD_REDIRECTED: .redirected
            case WEBKIT_LOAD_COMMITTED: .committed
            default: .finished
            }
        let url = webkit_web_view_get_uri(view).map { String(cString: $0) } ?? ""
        host.send(.event(.loadChanged(sheet: name, phase: phase, url: url)))
    }

    // MARK: Dialogs

    private func scriptDialog(_ dialog: OpaquePointer) -> Bool {
        let kind =
            switch webkit_script_dialog_get_dialog_type(dialog) {
            case WEBKIT_SCRIPT_DIALOG_ALERT: "alert"
            case WEBKIT_SCRIPT_DIALOG_CONFIRM: "confirm"
            case WEBKIT_SCRIPT_DIALOG_PROMPT: "prompt"
            default: "before-unload"
            }
        let message = webkit_script_dialog_get_message(dialog).map { String(cString: $0) } ?? ""
        let token = host.token()
        webkit_script_dialog_ref(dialog)
        dialogs[token] = dialog
        host.send(.event(.scriptDialog(sheet: name, dialog: token, kind: kind, message: message)))
        return true
    }

    func answerDialog(_ token: UInt64, accept: Bool) {
        guard let dialog = dialogs.removeValue(forKey: token) else { return }
        let type = webkit_script_dialog_get_dialog_type(dialog)
        if type == WEBKIT_SCRIPT_DIALOG_CONFIRM || type == WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM {
            webkit_script_dialog_confirm_set_confirmed(dialog, accept ? 1 : 0)
        }
        webkit_script_dialog_close(dialog)
        webkit_script_dialog_unref(dialog)
    }

    // MARK: Scripts and pictures

    /// Runs `script` as an async function's body in the driver's own script world, where the
    /// page's scripts cannot see or change what it defines, and replies with its JSON.
    func evaluate(_ script: String, replyTo id: UInt64) {
        let box = Unmanaged.passRetained(CompletionBox { [host] in host.reply(id, $0) }).toOpaque()
        webkit_web_view_call_async_javascript_function(
            view, script, -1, nil, "signinsim", nil, nil,
            { source, result, data in
                guard let data else { return }
                let completion = Unmanaged<CompletionBox>.fromOpaque(data).takeRetainedValue().completion
                var error: UnsafeMutablePointer<GError>?
                let value = webkit_web_view_call_async_javascript_function_finish(
                    source.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: WebKitWebView.self) },
                    result,
                    &error)
                if let error {
                    completion(.failed(message: String(cString: error.pointee.message)))
                    g_error_free(error)
                    return
                }
                guard let value else { return completion(.json(text: "null")) }
                defer { g_object_unref(UnsafeMutableRawPointer(value)) }
                if jsc_value_is_undefined(value) != 0 { return completion(.json(text: "null")) }
                guard let json = jsc_value_to_json(value, 0) else { return completion(.json(text: "null")) }
                defer { g_free(json) }
                completion(.json(text: String(cString: json)))
            }, box)
    }

    /// A JPEG of what the sheet shows.
    func snapshot(maximumWidth: Int, quality: Int, replyTo id: UInt64) {
        let box = Unmanaged.passRetained(
            CompletionBox { [host] in host.reply(id, $0) }
        ).toOpaque()
        let context = SnapshotContext(maximumWidth: maximumWidth, quality: quality)
        let contextPointer = Unmanaged.passRetained(context).toOpaque()
        context.completion = box
        webkit_web_view_get_snapshot(
            view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, nil,
            { source, result, data in
                guard let data else { return }
                let context = Unmanaged<SnapshotContext>.fromOpaque(data).takeRetainedValue()
                guard let box = context.completion else { return }
                let completion = Unmanaged<CompletionBox>.fromOpaque(box).takeRetainedValue().completion
                var error: UnsafeMutablePointer<GError>?
                let texture = webkit_web_view_get_snapshot_finish(
                    source.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: WebKitWebView.self) },
                    result,
                    &error)
                if let error {
                    completion(.failed(message: String(cString: error.pointee.message)))
                    g_error_free(error)
                    return
                }
                guard let texture else { return completion(.failed(message: "no picture")) }
                defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
                completion(context.jpeg(of: texture))
            }, contextPointer)
    }

    func terminateWebProcess() {
        webkit_web_view_terminate_web_process(view)
    }

    /// Refuses what still waits, and takes the window down once the loop is idle (destroying a
    /// view inside one of its own callbacks crashes WebKit).
    func close() {
        guard !closed else { return }
        closed = true
        for decision in decisions.values {
            webkit_policy_decision_ignore(decision)
            signinsim_object_unref(decision)
        }
        decisions = [:]
        for dialog in dialogs.values {
            webkit_script_dialog_close(dialog)
            webkit_script_dialog_unref(dialog)
        }
        dialogs = [:]
        signinsim_disconnect_all(view, context)
        webkit_web_view_stop_loading(view)
        let retained = Unmanaged.passRetained(self).toOpaque()
        g_idle_add(
            { data in
                guard let data else { return 0 }
                let sheet = Unmanaged<Sheet>.fromOpaque(data).takeRetainedValue()
                gtk_window_destroy(sheet.window)
                g_object_unref(sheet.view)
                return 0
            }, retained)
    }
}

/// What a snapshot's callback needs: the size and quality asked for, and where to reply.
final class SnapshotContext {
    let maximumWidth: Int
    let quality: Int
    var completion: UnsafeMutableRawPointer?

    init(maximumWidth: Int, quality: Int) {
        self.maximumWidth = maximumWidth
        self.quality = quality
    }

    func jpeg(of texture: OpaquePointer) -> HelperResult {
        guard let full = gdk_pixbuf_get_from_texture(texture) else {
            return .failed(message: "cannot read the picture")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(full)) }
        var pixbuf = full
        let width = Int(gdk_pixbuf_get_width(full))
        let height = Int(gdk_pixbuf_get_height(full))
        var scaledWidth = width
        var scaledHeight = height
        if width > maximumWidth, maximumWidth > 0 {
            scaledWidth = maximumWidth
            scaledHeight = max(1, height * maximumWidth / width)
            guard
                let scaled = gdk_pixbuf_scale_simple(
                    full, Int32(scaledWidth), Int32(scaledHeight), GDK_INTERP_BILINEAR)
            else { return .failed(message: "cannot scale the picture") }
            pixbuf = scaled
        }
        defer { if pixbuf != full { g_object_unref(UnsafeMutableRawPointer(pixbuf)) } }
        var buffer: UnsafeMutablePointer<CChar>?
        var size: Int = 0
        var error: UnsafeMutablePointer<GError>?
        guard signinsim_pixbuf_jpeg(pixbuf, Int32(quality), &buffer, &size, &error) != 0, let buffer else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "cannot encode JPEG"
            if let error { g_error_free(error) }
            return .failed(message: message)
        }
        defer { g_free(buffer) }
        let data = Data(bytes: buffer, count: size)
        return .image(jpeg: data, width: scaledWidth, height: scaledHeight)
    }
}
