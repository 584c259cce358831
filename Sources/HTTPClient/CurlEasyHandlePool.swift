import CCurl
import Locking

/// Idle easy handles of one transport, reused to save their set-up (buffers, DNS cache entries).
///
/// Connections live in the multi handle's cache, not here; the pool only spares allocations.
/// It keeps the cookie jar alive for as long as any of its handles may be attached to it.
final class CurlEasyHandlePool: @unchecked Sendable {
    let share: CurlShare?
    private let idle = Mutex<[IdleHandle]>([])
    private let capacity: Int

    init(share: CurlShare?, capacity: Int) {
        self.share = share
        self.capacity = capacity
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.pointer) }
    }

    /// An idle handle with every option at its default, or a new one.
    func take() -> UnsafeMutableRawPointer {
        if let handle = idle.withLock({ $0.popLast() }) { return handle.pointer }
        ensureCurlGlobalInit()
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        return handle
    }

    /// Resets a handle that libcurl no longer uses and keeps it, unless the pool is full.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        // libcurl 7.88's reset drops the pending cookie-file list without freeing it (a leak per
        // transfer); clearing it first frees it, and leaves a shared jar's cookies alone.
        _ = sis_easy_setopt_string(handle, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(handle)
        let idleHandle = IdleHandle(pointer: handle)
        let kept = idle.withLock { handles in
            guard handles.count < capacity else { return false }
            handles.append(idleHandle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}

/// An easy handle no transfer uses: only the pool's lock guards it, so it may cross threads.
private struct IdleHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
