public import Errors
import Locking

/// Where the SDK keeps credentials: the storage adapter of `setTokenStorage(_:)` (docs/sdk.md).
///
/// The shape is Auth0.swift's `CredentialsStorage` and the "Xid" SDK's adapter: three calls over
/// opaque bytes. `load` returns `nil` only when nothing is stored; a store that cannot be read
/// right now (a keychain before the first unlock answers `errSecInteractionNotAllowed`) must
/// throw, so that the SDK can tell "signed out" from "not readable yet" (field bug 4).
public protocol TokenStorage: Sendable {
    func save(key: String, value: [UInt8]) throws(TokenStorageError)
    func load(key: String) throws(TokenStorageError) -> [UInt8]?
    func delete(key: String) throws(TokenStorageError)
}

/// A storage failure; `status` carries the platform code (an OSStatus for the keychain).
public struct TokenStorageError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The item exists but cannot be read or written now (device locked, before first unlock).
        case unavailable
        /// Anything else.
        case failure
    }

    public let code: Code
    public let message: String
    public let status: Int32?

    public init(_ code: Code, _ message: String, status: Int32? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String {
        status.map { "\(code.rawValue) (\($0)): \(message)" } ?? "\(code.rawValue): \(message)"
    }
}

/// A process-memory store: what an app without a keychain adapter would use, and tests.
public final class InMemoryTokenStorage: TokenStorage {
    private let items = Mutex<[String: [UInt8]]>([:])

    public init() {}

    public func save(key: String, value: [UInt8]) throws(TokenStorageError) {
        items.withLock { $0[key] = value }
    }

    public func load(key: String) throws(TokenStorageError) -> [UInt8]? {
        items.withLock { $0[key] }
    }

    public func delete(key: String) throws(TokenStorageError) {
        _ = items.withLock { $0.removeValue(forKey: key) }
    }

    /// The keys currently stored, sorted.
    public var keys: [String] { items.withLock { $0.keys.sorted() } }
}
