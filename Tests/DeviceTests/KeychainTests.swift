import Device
import Testing

@Suite("Keychain")
struct KeychainTests {
    static let key = KeychainItemKey(accessGroup: "TEAM.com.example", service: "auth", account: "refresh")
    static let secret = Array("rt-secret-value".utf8)

    static func key(_ account: String, group: String = "TEAM.com.example") -> KeychainItemKey {
        KeychainItemKey(accessGroup: group, service: "auth", account: account)
    }

    /// Add, read, update and delete behave as SecItemAdd/CopyMatching/Update/Delete with Apple's statuses.
    @Test func basicOperations() throws {
        let keychain = Keychain()
        try keychain.add(Self.secret, for: Self.key, accessibility: .afterFirstUnlock)
        #expect(try keychain.read(Self.key) == Self.secret)

        let duplicate = #expect(throws: KeychainError.self) {
            try keychain.add([1], for: Self.key, accessibility: .afterFirstUnlock)
        }
        #expect(duplicate?.status == -25_299)

        try keychain.update([9, 9], for: Self.key)
        #expect(try keychain.read(Self.key) == [9, 9])
        #expect(keychain.dump().map(\.accessibility) == [.afterFirstUnlock])

        try keychain.delete(Self.key)
        let missing = #expect(throws: KeychainError.self) { try keychain.read(Self.key) }
        #expect(missing?.status == -25_300)
        #expect(missing?.description.hasPrefix("errSecItemNotFound (-25300)") == true)
        let updateMissing = #expect(throws: KeychainError.self) { try keychain.update([1], for: Self.key) }
        #expect(updateMissing?.code == .itemNotFound)
    }

    /// An upsert adds the first time and updates (data and class) the second.
    @Test func upsertAddsThenUpdates() throws {
        let keychain = Keychain()
        #expect(try keychain.upsert([1], for: Self.key, accessibility: .whenUnlocked) == .added)
        #expect(try keychain.upsert([2], for: Self.key, accessibility: .afterFirstUnlock) == .updated)
        #expect(try keychain.read(Self.key) == [2])
        #expect(
            keychain.dump() == [
                KeychainItemSummary(key: Self.key, accessibility: .afterFirstUnlock, byteCount: 1)
            ])
    }

    static let lockStates: [(String, KeychainLockState)] = [
        ("before first unlock", .beforeFirstUnlock),
        ("locked after first unlock", .lockedAfterFirstUnlock),
        ("unlocked", .unlocked),
        (
            "no passcode, never unlocked",
            KeychainLockState(hasBeenUnlockedSinceBoot: false, isUnlocked: false, hasPasscode: false)
        ),
    ]

    /// Which classes are readable in which lock state, written out by hand from Apple's table.
    static let expectedReadable: [String: Set<KeychainAccessibility>] = [
        "before first unlock": [.always],
        "locked after first unlock": [.afterFirstUnlock, .afterFirstUnlockThisDeviceOnly, .always],
        "unlocked": Set(KeychainAccessibility.allCases),
        "no passcode, never unlocked": Set(KeychainAccessibility.allCases).subtracting([
            .whenPasscodeSetThisDeviceOnly
        ]),
    ]

    /// Every class in every lock state: readable, writable and deletable exactly when Apple's rules allow.
    @Test(arguments: 0..<4)
    func availabilityMatrix(stateIndex: Int) throws {
        let (name, lockState) = Self.lockStates[stateIndex]
        let keychain = Keychain(lockState: .unlocked)
        for accessibility in KeychainAccessibility.allCases {
            try keychain.add([7], for: Self.key(accessibility.rawValue), accessibility: accessibility)
        }
        try keychain.setLockState(lockState)
        for accessibility in KeychainAccessibility.allCases {
            let key = Self.key(accessibility.rawValue)
            let readable = Self.expectedReadable[name]!.contains(accessibility)
            if !lockState.hasPasscode, accessibility == .whenPasscodeSetThisDeviceOnly {
                // Removing the passcode destroyed it.
                let read = #expect(throws: KeychainError.self) { try keychain.read(key) }
                #expect(read?.status == -25_300)
            } else if readable {
                #expect(try keychain.read(key) == [7], "\(name): \(accessibility)")
                #expect(try keychain.upsert([8], for: key, accessibility: accessibility) == .updated)
                try keychain.delete(key)
            } else {
                let read = #expect(throws: KeychainError.self, "\(name): \(accessibility)") {
                    try keychain.read(key)
                }
                let write = #expect(throws: KeychainError.self) { try keychain.update([8], for: key) }
                let delete = #expect(throws: KeychainError.self) { try keychain.delete(key) }
                #expect(read?.status == -25_308)
                #expect(write?.status == -25_308)
                #expect(delete?.status == -25_308)
            }
        }
    }

    /// Nothing can be added in a locked class, and the passcode class needs a passcode.
    @Test func writesNeedTheClassAvailable() {
        let keychain = Keychain(lockState: .beforeFirstUnlock)
        let locked = #expect(throws: KeychainError.self) {
            try keychain.add([1], for: Self.key, accessibility: .afterFirstUnlock)
        }
        #expect(locked?.code == .interactionNotAllowed)
        _ = try? keychain.setLockState(
            KeychainLockState(hasBeenUnlockedSinceBoot: true, isUnlocked: true, hasPasscode: false))
        let noPasscode = #expect(throws: KeychainError.self) {
            try keychain.add([1], for: Self.key, accessibility: .whenPasscodeSetThisDeviceOnly)
        }
        #expect(noPasscode?.status == -25_293)
        #expect(keychain.count == 0)
    }

    /// Removing the passcode destroys the passcode-set items and only those.
    @Test func removingThePasscodeDestroysPasscodeItems() throws {
        let keychain = Keychain(lockState: .unlocked)
        try keychain.add([1], for: Self.key("bio"), accessibility: .whenPasscodeSetThisDeviceOnly)
        try keychain.add([2], for: Self.key("token"), accessibility: .afterFirstUnlock)
        let destroyed = try keychain.setLockState(
            KeychainLockState(hasBeenUnlockedSinceBoot: true, isUnlocked: true, hasPasscode: false))
        #expect(destroyed == [Self.key("bio")])
        #expect(keychain.dump().map(\.key) == [Self.key("token")])
        // Setting a passcode again does not bring them back.
        try keychain.setLockState(.unlocked)
        #expect(keychain.count == 1)
    }

    /// Deleting an access group removes only its items, and nothing when one of them is locked.
    @Test func deleteAllIsPerGroupAndAllOrNothing() throws {
        let keychain = Keychain()
        try keychain.add([1], for: Self.key("a", group: "g1"), accessibility: .afterFirstUnlock)
        try keychain.add([2], for: Self.key("b", group: "g1"), accessibility: .whenUnlocked)
        try keychain.add([3], for: Self.key("c", group: "g2"), accessibility: .afterFirstUnlock)
        try keychain.setLockState(.lockedAfterFirstUnlock)
        let locked = #expect(throws: KeychainError.self) { try keychain.deleteAll(accessGroup: "g1") }
        #expect(locked?.code == .interactionNotAllowed)
        #expect(keychain.count == 3)
        try keychain.setLockState(.unlocked)
        #expect(try keychain.deleteAll(accessGroup: "g1") == 2)
        #expect(keychain.dump().map(\.key) == [Self.key("c", group: "g2")])
        let empty = #expect(throws: KeychainError.self) { try keychain.deleteAll(accessGroup: "g1") }
        #expect(empty?.code == .itemNotFound)
    }

    /// The dump is sorted and no description of an item shows its secret bytes.
    @Test func dumpIsSortedAndHidesSecrets() throws {
        let keychain = Keychain()
        try keychain.add(Self.secret, for: Self.key("z"), accessibility: .always)
        try keychain.add(Self.secret, for: Self.key("a", group: "B"), accessibility: .whenUnlocked)
        try keychain.add(Self.secret, for: Self.key("m"), accessibility: .afterFirstUnlockThisDeviceOnly)
        #expect(
            keychain.dump().map(\.description) == [
                "B/auth/a whenUnlocked 15 bytes",
                "TEAM.com.example/auth/m afterFirstUnlockThisDeviceOnly 15 bytes",
                "TEAM.com.example/auth/z always 15 bytes",
            ])
        let item = KeychainItem(key: Self.key, data: Self.secret, accessibility: .always)
        var dumped = ""
        dump(item, to: &dumped)
        for text in [String(describing: item), String(reflecting: item), dumped] {
            #expect(!text.contains("rt-secret"))
            #expect(!text.contains("114"))  // the first byte, "r", as a number
            #expect(text.contains("15"))
        }
    }
}
