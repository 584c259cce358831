extension SignInClient {
    /// Writes the session; a storage failure is reported, never ignored. A session that is not
    /// a refresh of the stored one (a sign-in, a restore) replaces the app's kept copy too
    /// (`stale-refresh-copy`).
    func store(_ session: Session, refreshed: Bool = false) throws(SignInError) {
        if !refreshed { keptRefreshToken = nil }
        do {
            let bytes = session.storedBytes
            try environment.storage.save(key: Self.credentialsKey, value: bytes)
            lastStoredForm = (bytes, session)
        } catch {
            throw SignInError(.storage, "could not store the session: \(error)")
        }
    }

    /// Reads the stored session: `nil` when none is stored.
    ///
    /// A store that cannot be read now (a keychain before the first unlock) throws `storage`
    /// and leaves the session alone; the `keychain-error-signs-out` fault (field bug 4) takes
    /// that for "signed out" and deletes it.
    func loadSession() throws(SignInError) -> Session? {
        flushDeferredWrite()
        let bytes: [UInt8]?
        do {
            bytes = try environment.storage.load(key: Self.credentialsKey)
        } catch {
            if options?.profile.has(.keychainErrorSignsOut) == true {
                try? environment.storage.delete(key: Self.credentialsKey)
                return nil
            }
            throw SignInError(.storage, "the session cannot be read now: \(error)")
        }
        guard let bytes else { return nil }
        if let last = lastStoredForm, last.bytes == bytes { return last.session }
        let session = try Session(storedBytes: bytes)
        lastStoredForm = (bytes, session)
        return session
    }

    /// Deletes the stored session.
    func clearSession() throws(SignInError) {
        deferredWrite = nil
        lastStoredForm = nil
        keptRefreshToken = nil
        do {
            try environment.storage.delete(key: Self.credentialsKey)
        } catch {
            throw SignInError(.storage, "could not delete the session: \(error)")
        }
    }

    /// Writes a refreshed session that the `persist-late` fault held back (field bug 2): it
    /// happens on the SDK's next call, so a kill before then loses it.
    func flushDeferredWrite() {
        guard let session = deferredWrite else { return }
        deferredWrite = nil
        try? store(session, refreshed: true)
    }

    /// Whether a session is stored (without refreshing it).
    public func hasStoredSession() throws(SignInError) -> Bool { try loadSession() != nil }

    /// Stores credentials obtained outside this SDK (a migration from another SDK, or a session
    /// taken from a recorded capture to replay what followed), as Auth0's credentials manager
    /// `store(credentials:)` does. Nothing is verified: the caller vouches for them.
    public func restore(_ session: Session) throws(SignInError) { try store(session) }

    /// The stored session as it is, without refreshing it: what a test or a debug screen
    /// inspects. `getSession()` is what an app calls.
    public func storedSession() throws(SignInError) -> Session? { try loadSession() }
}
