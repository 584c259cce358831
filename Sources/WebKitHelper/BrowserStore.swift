import CWebKitGTK
import Foundation
import WebKitHelperProtocol

/// A `WebKitNetworkSession`: the cookies and website data of the sheets opened in it.
///
/// Ephemeral (`prefersEphemeralWebBrowserSession`) keeps everything in memory and is dropped
/// with the store; persistent keeps cookies in an SQLite file and website data under a
/// directory, as the system browser does across app launches. Intelligent Tracking Prevention
/// is off: it keys storage by first party, which a sign-in that stays on one issuer never
/// meets, and its state would differ from run to run.
final class BrowserStore {
    let session: OpaquePointer

    init(directory: String?, proxy: String?, tunnel: String?) {
        if let directory {
            session = signinsim_persistent_session_new(directory + "/data", directory + "/cache")
            webkit_cookie_manager_set_persistent_storage(
                webkit_network_session_get_cookie_manager(session), directory + "/cookies.sqlite",
                WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
        } else {
            session = webkit_network_session_new_ephemeral()
        }
        webkit_network_session_set_itp_enabled(session, 0)
        if proxy != nil || tunnel != nil {
            // No host is exempt (an empty ignore list): loopback issuers go through the proxy too.
            var ignore: [UnsafePointer<CChar>?] = [nil]
            let settings = webkit_network_proxy_settings_new(nil, &ignore)
            if let proxy { webkit_network_proxy_settings_add_proxy_for_scheme(settings, "http", proxy) }
            if let tunnel {
                webkit_network_proxy_settings_add_proxy_for_scheme(settings, "https", tunnel)
                // The tunnel ends TLS with its own certificate and checks the real server's itself.
                webkit_network_session_set_tls_errors_policy(session, WEBKIT_TLS_ERRORS_POLICY_IGNORE)
            }
            webkit_network_session_set_proxy_settings(session, WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings)
            webkit_network_proxy_settings_free(settings)
        }
    }

    deinit {
        signinsim_object_unref(UnsafeMutableRawPointer(session))
    }

    /// Every cookie of the store, handed to `completion` on the main thread.
    func cookies(_ completion: @escaping (HelperResult) -> Void) {
        let manager = webkit_network_session_get_cookie_manager(session)
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        webkit_cookie_manager_get_all_cookies(
            manager, nil,
            { source, result, data in
                guard let data else { return }
                let completion = Unmanaged<CompletionBox>.fromOpaque(data).takeRetainedValue().completion
                var error: UnsafeMutablePointer<GError>?
                let list = webkit_cookie_manager_get_all_cookies_finish(OpaquePointer(source), result, &error)
                if let error {
                    completion(.failed(message: String(cString: error.pointee.message)))
                    g_error_free(error)
                    return
                }
                var cookies: [BrowserCookie] = []
                var node = list
                while let current = node {
                    if let cookie = current.pointee.data.map({ OpaquePointer($0) }) {
                        cookies.append(BrowserStore.cookie(cookie))
                    }
                    node = current.pointee.next
                }
                g_list_free_full(list) { soup_cookie_free(OpaquePointer($0)) }
                completion(.cookies(cookies: cookies))
            }, box)
    }

    private static func cookie(_ cookie: OpaquePointer) -> BrowserCookie {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let expires = soup_cookie_get_expires(cookie).map { Double(g_date_time_to_unix($0)) }
        return BrowserCookie(
            name: text(soup_cookie_get_name(cookie)), value: text(soup_cookie_get_value(cookie)),
            domain: text(soup_cookie_get_domain(cookie)), path: text(soup_cookie_get_path(cookie)),
            expires: expires, secure: soup_cookie_get_secure(cookie) != 0,
            httpOnly: soup_cookie_get_http_only(cookie) != 0)
    }
}

/// A closure carried through a C callback's user data.
final class CompletionBox {
    let completion: (HelperResult) -> Void
    init(_ completion: @escaping (HelperResult) -> Void) { self.completion = completion }
}
