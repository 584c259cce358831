import COpenSSL
import Locking

/// A free list of `EVP_PKEY_CTX` initialised once for one key, one operation and one padding.
///
/// `EVP_PKEY_sign_init`/`EVP_PKEY_verify_init` fetch the signature implementation and set parameters,
/// which costs as much as a P-256 signature itself. OpenSSL documents that `EVP_PKEY_sign` and
/// `EVP_PKEY_verify` may be called again on an initialised context, so contexts are kept and reused.
/// A context is never used by two threads at once: it is taken out of the list under the lock, used
/// outside it, and put back afterwards.
final class PKeyContextPool: @unchecked Sendable {
    // Safe to share: `pkey` is immutable after construction (OpenSSL 3 allows concurrent operations on
    // one EVP_PKEY), and each context is owned by exactly one thread between `checkOut` and `checkIn`.

    enum Operation {
        case sign
        case verify
    }

    /// How the context is configured beyond the operation.
    enum Scheme {
        case ecdsa
        case rsa(RSAPadding)
    }

    /// An idle context, moved between threads only through the mutex.
    private struct Handle: @unchecked Sendable {
        let context: OpaquePointer
    }

    /// Idle contexts beyond this are freed: enough for every core of a typical machine.
    private static let maximumIdle = 16

    private let pkey: OpaquePointer
    private let operation: Operation
    private let scheme: Scheme
    private let idle = Mutex<[Handle]>([])

    /// Keeps its own reference to `pkey`.
    init(pkey: OpaquePointer, operation: Operation, scheme: Scheme) {
        EVP_PKEY_up_ref(pkey)
        self.pkey = pkey
        self.operation = operation
        self.scheme = scheme
    }

    deinit {
        for handle in idle.withLock({ $0 }) {
            EVP_PKEY_CTX_free(handle.context)
        }
        EVP_PKEY_free(pkey)
    }

    /// Signs a 32-byte SHA-256 digest into `signature`; returns the signature length or nil on failure,
    /// leaving the reason on the OpenSSL error queue.
    func sign(digest: UnsafeRawBufferPointer, into signature: UnsafeMutableRawBufferPointer) -> Int? {
        precondition(operation == .sign)
        guard let context = checkOut() else { return nil }
        var length = signature.count
        let status = EVP_PKEY_sign(
            context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
            digest.baseAddress?.assumingMemoryBound(to: UInt8.self), digest.count)
        guard status == 1 else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        checkIn(context)
        return length
    }

    /// Whether `signature` is valid for the 32-byte SHA-256 digest. Never leaves errors queued.
    func verify(signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        precondition(operation == .verify)
        guard let context = checkOut() else {
            ERR_clear_error()
            return false
        }
        let status = EVP_PKEY_verify(
            context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
            digest.baseAddress?.assumingMemoryBound(to: UInt8.self), digest.count)
        if status == 1 {
            checkIn(context)
            return true
        }
        // 0 is a plain mismatch and leaves the context usable; below 0 is an error, so start afresh.
        ERR_clear_error()
        if status == 0 {
            checkIn(context)
        } else {
            EVP_PKEY_CTX_free(context)
        }
        return false
    }

    private func checkOut() -> OpaquePointer? {
        if let handle = idle.withLock({ $0.popLast() }) {
            return handle.context
        }
        return makeContext()
    }

    private func checkIn(_ context: OpaquePointer) {
        let kept = idle.withLock { list in
            guard list.count < Self.maximumIdle else { return false }
            list.append(Handle(context: context))
            return true
        }
        if !kept {
            EVP_PKEY_CTX_free(context)
        }
    }

    private func makeContext() -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
        let sha256 = OpenSSLObjects.shared.sha256
        var ready =
            switch operation {
            case .sign: EVP_PKEY_sign_init(context) == 1
            case .verify: EVP_PKEY_verify_init(context) == 1
            }
        if ready, case .rsa(let padding) = scheme {
            ready =
                switch padding {
                case .pkcs1v15: sis_rsa_set_pkcs1(context) == 1
                case .pss: sis_rsa_set_pss(context, sha256) == 1
                }
        }
        ready = ready && EVP_PKEY_CTX_set_signature_md(context, sha256) > 0
        guard ready else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }
}
