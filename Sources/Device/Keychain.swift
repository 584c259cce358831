import Locking

/// One device's keychain of generic passwords (`kSecClassGenericPassword`), shared by its apps.
///
/// Models the `SecItem` calls a sign-in SDK makes: `SecItemAdd` (`add`), `SecItemUpdate`
/// (`update`), the add-then-update upsert SDKs build from them (`upsert`), `SecItemCopyMatching`
/// (`read`) and `SecItemDelete` (`delete`, `deleteAll`). Every call first checks the item's
/// `kSecAttrAccessible` class against the device's `KeychainLockState` and fails with
/// `errSecInteractionNotAllowed` when the class key is unavailable (field bug 4). Items belong
/// to the device, not to an app: deleting an app leaves them (field bug 16).
///
/// With a file path, the keychain is loaded from it at init and rewritten atomically after each
/// change (see `Keychain+Persistence.swift`); a failed write leaves the items as they were.
public final class Keychain: Sendable {
    /// Whether an upsert succeeded through `SecItemAdd` (a new item) or `SecItemUpdate`.
    public enum WriteResult: String, Hashable, Sendable {
        case added
        case updated
    }

    struct State {
        var items: [KeychainItemKey: KeychainItem]
        var lockState: KeychainLockState
    }

    let state: Mutex<State>
    /// The file the keychain persists to, or `nil` for a keychain in memory only.
    public let path: String?

    /// An empty keychain in memory.
    public init(lockState: KeychainLockState = .unlocked) {
        state = Mutex(State(items: [:], lockState: lockState))
        path = nil
    }

    /// A keychain stored in the file at `path` (created at the first change when missing).
    /// - Throws: `DeviceError.storage` naming the file when it cannot be read or is corrupt.
    public init(lockState: KeychainLockState = .unlocked, persistingTo path: String) throws(DeviceError) {
        let items = try KeychainFile.load(path: path)
        state = Mutex(State(items: items, lockState: lockState))
        self.path = path
    }

    // MARK: Lock state

    /// What the device last told the keychain about its lock.
    public var lockState: KeychainLockState { state.withLock { $0.lockState } }

    /// Applies the device's new lock state. Removing the passcode destroys every
    /// `whenPasscodeSetThisDeviceOnly` item, as iOS does.
    /// - Returns: the keys of the destroyed items, sorted.
    /// - Throws: `errSecIO` when the file could not be rewritten; the change stays in memory.
    @discardableResult
    public func setLockState(_ newState: KeychainLockState) throws(KeychainError) -> [KeychainItemKey] {
        try state.withLock { (state) throws(KeychainError) -> [KeychainItemKey] in
            let hadPasscode = state.lockState.hasPasscode
            state.lockState = newState
            guard hadPasscode, !newState.hasPasscode else { return [] }
            let destroyed = state.items.values.filter { $0.accessibility == .whenPasscodeSetThisDeviceOnly }
                .map(\.key).sorted()
            guard !destroyed.isEmpty else { return [] }
            for key in destroyed { state.items[key] = nil }
            try persist(state.items)
            return destroyed
        }
    }

    // MARK: Items

    /// Adds an item, as `SecItemAdd`.
    /// - Throws: `errSecDuplicateItem` when the key is taken, `errSecAuthFailed` for the
    ///   passcode-set class without a passcode, `errSecInteractionNotAllowed` when the class is
    ///   locked.
    public func add(_ data: [UInt8], for key: KeychainItemKey, accessibility: KeychainAccessibility)
        throws(KeychainError)
    {
        try mutate { (items, lockState) throws(KeychainError) in
            try Self.checkWritable(accessibility, key: key, lockState: lockState)
            guard items[key] == nil else {
                throw KeychainError(.duplicateItem, "an item \(key) already exists")
            }
            items[key] = KeychainItem(key: key, data: data, accessibility: accessibility)
        }
    }

    /// Replaces an item's data, and its class when `accessibility` is given, as `SecItemUpdate`.
    /// - Throws: `errSecItemNotFound` when there is no such item; the class errors of `add` for
    ///   the item's current class and for the new one.
    public func update(
        _ data: [UInt8], for key: KeychainItemKey, accessibility: KeychainAccessibility? = nil
    ) throws(KeychainError) {
        try mutate { (items, lockState) throws(KeychainError) in
            guard let existing = items[key] else {
                throw KeychainError(.itemNotFound, "no item \(key) to update")
            }
            try Self.checkAvailable(existing.accessibility, key: key, lockState: lockState, action: "update")
            let newClass = accessibility ?? existing.accessibility
            try Self.checkWritable(newClass, key: key, lockState: lockState)
            items[key] = KeychainItem(key: key, data: data, accessibility: newClass)
        }
    }

    /// Adds the item, or replaces the data and class of the one already there.
    @discardableResult
    public func upsert(_ data: [UInt8], for key: KeychainItemKey, accessibility: KeychainAccessibility)
        throws(KeychainError) -> WriteResult
    {
        try mutate { (items, lockState) throws(KeychainError) -> WriteResult in
            if let existing = items[key] {
                try Self.checkAvailable(
                    existing.accessibility, key: key, lockState: lockState, action: "update")
            }
            try Self.checkWritable(accessibility, key: key, lockState: lockState)
            let result: WriteResult = items[key] == nil ? .added : .updated
            items[key] = KeychainItem(key: key, data: data, accessibility: accessibility)
            return result
        }
    }

    /// The item's data, as `SecItemCopyMatching` with `kSecReturnData`.
    /// - Throws: `errSecItemNotFound`, or `errSecInteractionNotAllowed` when the item's class is
    ///   locked (the status an SDK must not mistake for "signed out").
    public func read(_ key: KeychainItemKey) throws(KeychainError) -> [UInt8] {
        try state.withLock { (state) throws(KeychainError) -> [UInt8] in
            guard let item = state.items[key] else {
                throw KeychainError(.itemNotFound, "no item \(key)")
            }
            try Self.checkAvailable(item.accessibility, key: key, lockState: state.lockState, action: "read")
            return item.data
        }
    }

    /// Deletes an item, as `SecItemDelete` with a full key.
    /// - Throws: `errSecItemNotFound`, or `errSecInteractionNotAllowed` when its class is locked.
    public func delete(_ key: KeychainItemKey) throws(KeychainError) {
        try mutate { (items, lockState) throws(KeychainError) in
            guard let item = items[key] else {
                throw KeychainError(.itemNotFound, "no item \(key) to delete")
            }
            try Self.checkAvailable(item.accessibility, key: key, lockState: lockState, action: "delete")
            items[key] = nil
        }
    }

    /// Deletes every item of an access group, as `SecItemDelete` with only
    /// `kSecAttrAccessGroup`. All or nothing: when any of them is locked, none is deleted.
    /// - Returns: how many items were deleted.
    /// - Throws: `errSecItemNotFound` when the group has no item; `errSecInteractionNotAllowed`
    ///   naming the first locked item.
    @discardableResult
    public func deleteAll(accessGroup: String) throws(KeychainError) -> Int {
        try mutate { (items, lockState) throws(KeychainError) -> Int in
            let matching = items.filter { $0.key.accessGroup == accessGroup }.sorted { $0.key < $1.key }
            guard !matching.isEmpty else {
                throw KeychainError(.itemNotFound, "no item in access group \(accessGroup)")
            }
            for (key, item) in matching {
                try Self.checkAvailable(item.accessibility, key: key, lockState: lockState, action: "delete")
            }
            for (key, _) in matching { items[key] = nil }
            return matching.count
        }
    }

    /// Every item without its data, sorted by access group, service and account.
    public func dump() -> [KeychainItemSummary] {
        state.withLock { $0.items.values.map(\.summary).sorted() }
    }

    /// How many items the keychain holds.
    public var count: Int { state.withLock { $0.items.count } }

    // MARK: Helpers

    /// Runs a change on a copy of the items, persists the copy, and only then keeps it.
    private func mutate<Result>(
        _ change: (inout [KeychainItemKey: KeychainItem], KeychainLockState) throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result {
        try state.withLock { (state) throws(KeychainError) -> Result in
            var items = state.items
            let result = try change(&items, state.lockState)
            try persist(items)
            state.items = items
            return result
        }
    }

    private func persist(_ items: [KeychainItemKey: KeychainItem]) throws(KeychainError) {
        guard let path else { return }
        do {
            try KeychainFile.write(items, to: path)
        } catch {
            throw KeychainError(.io, error.message)
        }
    }

    private static func checkAvailable(
        _ accessibility: KeychainAccessibility, key: KeychainItemKey, lockState: KeychainLockState,
        action: String
    ) throws(KeychainError) {
        guard !lockState.allows(accessibility) else { return }
        throw KeychainError(
            .interactionNotAllowed,
            "cannot \(action) \(key): class \(accessibility.rawValue) is unavailable (\(lockState))")
    }

    private static func checkWritable(
        _ accessibility: KeychainAccessibility, key: KeychainItemKey, lockState: KeychainLockState
    ) throws(KeychainError) {
        if accessibility == .whenPasscodeSetThisDeviceOnly, !lockState.hasPasscode {
            // Apple documents only that such items cannot be stored without a passcode; the
            // status devices report for it is errSecAuthFailed.
            throw KeychainError(
                .authFailed, "cannot store \(key) in class \(accessibility.rawValue): no passcode is set")
        }
        try checkAvailable(accessibility, key: key, lockState: lockState, action: "write")
    }
}
