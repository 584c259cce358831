/// "Did you mean": the known name a mistyped one was most likely meant to be.
///
/// A candidate is close when its edit distance (insertions, deletions, substitutions and swaps
/// of two neighbours: the optimal string alignment distance) is at most a third of the longer
/// name, and at least 1; case is ignored, so `signin` finds `signIn`. Ties go to the candidate
/// listed first. Used for step names, argument keys and every closed set a scenario names
/// (profiles, faults, error codes, app phases), the keys and names of tenant files, and the
/// CLI's subcommands and options.
public enum NearMiss {
    /// The closest known name, or nil when none is close enough to suggest.
    public static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
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

    /// What a message about an unknown name adds: `; did you mean "x"?` when a known name is
    /// close, else `; expected one of: a, b, c` (`listing` names the list: "known", "apps").
    public static func alternatives(
        for name: String, among candidates: [String], listing: String = "expected one of"
    ) -> String {
        if let close = suggestion(for: name, among: candidates) { return "; did you mean \"\(close)\"?" }
        return "; \(listing): " + candidates.joined(separator: ", ")
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
