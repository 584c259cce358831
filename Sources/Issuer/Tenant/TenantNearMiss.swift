/// "Did you mean" for the tenant loader: the known value a mistyped one was most likely meant
/// to be.
///
/// The same rule as the scenario reader's `NearMiss` (module `Scenario`), which this module
/// cannot import, since `Scenario` depends on `Issuer`: a candidate is close when its optimal
/// string alignment distance (insertions, deletions, substitutions, swaps of two neighbours) is
/// at most a third of the longer name, and at least 1; case is ignored; ties go to the
/// candidate listed first.
enum TenantNearMiss {
    /// The closest known value, or nil when none is close enough to suggest.
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        guard !typed.isEmpty else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let known = Array(candidate.lowercased().unicodeScalars)
            let limit = max(1, max(typed.count, known.count) / 3)
            guard abs(typed.count - known.count) <= limit else { continue }
            let distance = editDistance(typed, known)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// What a message about an unknown value adds: `; did you mean "x"?` when a known value is
    /// close, else `; expected one of: a, b`.
    static func alternatives(for name: String, among candidates: [String]) -> String {
        if let close = suggestion(for: name, among: candidates) { return "; did you mean \"\(close)\"?" }
        return "; expected one of: " + candidates.joined(separator: ", ")
    }

    /// Optimal string alignment distance, by rows (Damerau 1964; Wagner and Fischer 1974).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                var distance = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = min(distance, twoBack[j - 2] + 1)
                }
                current[j] = distance
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }
}
