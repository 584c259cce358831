import CCurl
public import Clocks
import Glibc

/// A cookie store held by libcurl's cookie engine, shareable between transports and threads.
///
/// One jar is one `CURLSH` sharing `CURL_LOCK_DATA_COOKIE`. Every transfer of a transport that
/// holds the jar reads and writes it, so giving one jar to several transports models a device's
/// system browser (SSO cookies survive between sessions), and giving each its own models an
/// ephemeral session. libcurl calls the lock callbacks around every access, which makes the jar
/// safe to use from any thread while transfers run.
///
/// **Time.** libcurl judges expiry by the machine's clock (`time()`) when it stores and sends
/// cookies. The jar judges it by `clock`, a phone's clock in a simulation (Safari and
/// `WKWebView` go by the device's time): `cookies()` leaves out what is expired at `clock`, and
/// `removeExpired()`, which the simulated browser calls before each request, takes those
/// cookies out of libcurl's store, so moving world time forward ages a persistent cookie. An
/// expiry libcurl computed from `Max-Age` counts from the machine's time at receipt.
public final class CookieJar: Sendable {
    let share: CurlShare
    /// The clock expiry is judged by.
    public let clock: any WallClock

    public init(clock: any WallClock = SystemWallClock()) {
        share = CurlShare()
        self.clock = clock
    }

    /// Every cookie in the jar, expired ones at `clock` left out, in libcurl's order.
    public func cookies() -> [Cookie] {
        let now = clock.now()
        return storedCookies().filter { !$0.isExpired(at: now) }
    }

    /// Takes out of the store every cookie expired at `clock` (RFC 6265 §5.3 step 11: an
    /// expired cookie is evicted), by storing it again with an expiry libcurl also sees as
    /// past, which replaces the stored one and is then dropped.
    public func removeExpired() {
        let now = clock.now()
        for var cookie in storedCookies() where cookie.isExpired(at: now) {
            cookie.expires = 1
            let line = cookie.netscapeLine
            share.withTemporaryHandle { handle in
                _ = sis_easy_setopt_string(handle, CURLOPT_COOKIELIST, line)
            }
        }
    }

    /// Every cookie libcurl holds, in its order.
    private func storedCookies() -> [Cookie] {
        share.withTemporaryHandle { handle in
            var list: UnsafeMutablePointer<curl_slist>?
            guard sis_easy_getinfo_slist(handle, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return [] }
            defer { curl_slist_free_all(list) }
            var result: [Cookie] = []
            var node = list
            while let current = node {
                if let data = current.pointee.data, let cookie = Cookie(netscapeLine: String(cString: data)) {
                    result.append(cookie)
                }
                node = current.pointee.next
            }
            return result
        }
    }

    /// Forgets every cookie (`CURLOPT_COOKIELIST "ALL"`).
    public func removeAll() {
        share.withTemporaryHandle { handle in
            _ = sis_easy_setopt_string(handle, CURLOPT_COOKIELIST, "ALL")
        }
    }

    /// Forgets the cookies without an expiry, as when a browser quits (`"SESS"`).
    public func removeSessionCookies() {
        share.withTemporaryHandle { handle in
            _ = sis_easy_setopt_string(handle, CURLOPT_COOKIELIST, "SESS")
        }
    }

    /// Stores a cookie as it is, replacing one with the same domain, path and name.
    public func insert(_ cookie: Cookie) {
        guard cookie.isRepresentable else { return }
        let line = cookie.netscapeLine
        share.withTemporaryHandle { handle in
            _ = sis_easy_setopt_string(handle, CURLOPT_COOKIELIST, line)
        }
    }
}

/// A `CURLSH` that shares cookies, with one mutex per kind of shared data.
final class CurlShare: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private let mutexes: UnsafeMutablePointer<pthread_mutex_t>
    private static let mutexCount = Int(CURL_LOCK_DATA_LAST.rawValue) + 1

    init() {
        ensureCurlGlobalInit()
        guard let share = curl_share_init() else { fatalError("curl_share_init failed: out of memory") }
        handle = share
        mutexes = .allocate(capacity: Self.mutexCount)
        for index in 0..<Self.mutexCount { pthread_mutex_init(mutexes + index, nil) }
        _ = sis_share_setopt_pointer(share, CURLSHOPT_USERDATA, UnsafeMutableRawPointer(mutexes))
        _ = sis_share_setopt_lock_functions(share, curlShareLock, curlShareUnlock)
        let code = sis_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        precondition(code == CURLSHE_OK, "curl_share_setopt(SHARE, COOKIE) failed: \(code)")
    }

    deinit {
        // Every easy handle that used the share is gone by now: transports keep the jar alive
        // for as long as their handles exist.
        _ = curl_share_cleanup(handle)
        for index in 0..<Self.mutexCount { pthread_mutex_destroy(mutexes + index) }
        mutexes.deallocate()
    }

    /// Runs `body` with an easy handle attached to the share, for jar operations outside transfers.
    func withTemporaryHandle<Result>(_ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        guard let easy = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        defer {
            _ = sis_easy_setopt_share(easy, nil)
            curl_easy_cleanup(easy)
        }
        _ = sis_easy_setopt_share(easy, handle)
        return body(easy)
    }

    /// Attaches a transfer's handle to the share and turns its cookie engine on.
    func attach(_ easy: UnsafeMutableRawPointer) {
        _ = sis_easy_setopt_share(easy, handle)
        _ = sis_easy_setopt_string(easy, CURLOPT_COOKIEFILE, "")
    }
}

private func curlShareLock(
    _ handle: UnsafeMutableRawPointer?, _ data: curl_lock_data, _ access: curl_lock_access,
    _ userData: UnsafeMutableRawPointer?
) {
    guard let userData else { return }
    let mutexes = userData.assumingMemoryBound(to: pthread_mutex_t.self)
    pthread_mutex_lock(mutexes + Int(data.rawValue))
}

private func curlShareUnlock(
    _ handle: UnsafeMutableRawPointer?, _ data: curl_lock_data, _ userData: UnsafeMutableRawPointer?
) {
    guard let userData else { return }
    let mutexes = userData.assumingMemoryBound(to: pthread_mutex_t.self)
    pthread_mutex_unlock(mutexes + Int(data.rawValue))
}
