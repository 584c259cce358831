#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileReplacement {
    /// Removes the temporary files `replace` left in `directory` when its process died between
    /// creating one and renaming it (SIGKILL, a crash, power loss): hidden files named
    /// `.<name>.<pid>.<random>.tmp` whose process no longer exists. A file of a live process,
    /// this one included, is left alone: its writer may still rename it. Nothing else is
    /// touched, and a directory that cannot be read is no error.
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeStaleTemporaryFiles(in directory: String) -> [String] {
        var removed: [String] = []
        for name in entries(of: directory) {
            guard let pid = temporaryFileOwner(name), pid != getpid(), !isRunning(pid) else { continue }
            let path = "\(directory)/\(name)"
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// The process id in a name of the form `.<name>.<pid>.<base-36 random>.tmp`, or `nil`
    /// when the name is not one `replace` makes.
    public static func temporaryFileOwner(_ name: String) -> Int32? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[0].isEmpty else { return nil }
        let random = parts[parts.count - 1]
        let pid = parts[parts.count - 2]
        guard !random.isEmpty, random.utf8.allSatisfy(isBase36Digit), !pid.isEmpty,
            pid.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = pid_t(pid), value > 0
        else { return nil }
        return value
    }

    private static func isBase36Digit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// Whether a process with this id exists (`kill(pid, 0)`; EPERM means it does, as
    /// another user's).
    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    /// The names in `directory`, `.` and `..` left out; none when it cannot be read.
    private static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
