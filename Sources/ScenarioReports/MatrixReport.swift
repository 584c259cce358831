public import JSON
public import Scenario

/// The profile × field-bug table of `signinsim matrix`, as text, JSON and an HTML page.
public enum MatrixReport {
    /// The mark of a verdict in the text table; the legend under it says which is which.
    static func mark(_ verdict: ExposureMatrix.Verdict) -> String {
        switch verdict {
        case .exposed: "X"
        case .notExposed: "."
        case .notApplicable: "-"
        }
    }

    /// A row per profile, a column per field bug, then the legend and the scenarios.
    public static func text(_ matrix: ExposureMatrix) -> String {
        let width = max(7, (matrix.profiles.map(\.count).max() ?? 0) + 2)
        let cell = max(3, (matrix.columns.map(\.id.count).max() ?? 0) + 1)
        func padded(_ text: String, _ size: Int) -> String {
            String(repeating: " ", count: max(0, size - text.count)) + text
        }
        var out = "profile".padding(toLength: width, withPad: " ", startingAt: 0)
        out += matrix.columns.map { padded($0.id, cell) }.joined() + "\n"
        for profile in matrix.profiles {
            out += profile.padding(toLength: width, withPad: " ", startingAt: 0)
            out += matrix.columns.map { padded(mark(matrix.verdict(profile: profile, column: $0)), cell) }
                .joined()
            out += "\n"
        }
        out += "\nX exposed (the correct app failed with this profile), . not exposed, - not applicable\n"
        for column in matrix.columns {
            out += "\(column.id): " + column.scenarios.map(\.description).joined(separator: "; ") + "\n"
        }
        return out
    }

    /// `{"profiles", "field_bugs": [{"id", "scenarios"}], "verdicts": {profile: {id: verdict}},
    /// "trials": [{"profile", "file", "name", "verdict", "reason"}]}`.
    public static func json(_ matrix: ExposureMatrix) -> JSONValue {
        var verdicts: [String: JSONValue] = [:]
        for profile in matrix.profiles {
            verdicts[profile] = .object(
                Dictionary(
                    uniqueKeysWithValues: matrix.columns.map {
                        ($0.id, .string(matrix.verdict(profile: profile, column: $0).rawValue))
                    }))
        }
        return [
            "profiles": .array(matrix.profiles.map(JSONValue.string)),
            "field_bugs": .array(
                matrix.columns.map { column in
                    [
                        "id": .string(column.id),
                        "scenarios": .array(
                            column.scenarios.map { ["file": .string($0.file), "name": .string($0.name)] }),
                    ]
                }),
            "verdicts": .object(verdicts),
            "trials": .array(
                matrix.trials.map { trial in
                    [
                        "profile": .string(trial.profile), "file": .string(trial.scenario.file),
                        "name": .string(trial.scenario.name), "verdict": .string(trial.verdict.rawValue),
                        "reason": trial.reason.map(JSONValue.string) ?? .null,
                    ]
                }),
        ]
    }

    /// The table as an HTML section: a mark and a word in every cell, the reasons as tooltips.
    public static func htmlSection(_ matrix: ExposureMatrix) -> String {
        var html = """
            <section class="matrix" id="matrix" aria-labelledby="matrix-title">
            <h2 id="matrix-title">Profiles × field bugs</h2>
            <p>Each field-bug scenario run again with its correct app given the profile of the row.
            ✗ exposed: the correct app failed; ✓ not exposed; – not applicable.</p>
            <div class="matrix-wrap"><table><thead><tr><th scope="col">Profile</th>
            """
        for column in matrix.columns {
            let names = column.scenarios.map(\.name).joined(separator: "; ")
            html +=
                "<th scope=\"col\" title=\"\(HTMLReport.attribute(names))\">\(HTMLReport.text(column.id))</th>"
        }
        html += "</tr></thead><tbody>\n"
        for profile in matrix.profiles {
            html += "<tr><th scope=\"row\"><code>\(HTMLReport.text(profile))</code></th>"
            for column in matrix.columns {
                let verdict = matrix.verdict(profile: profile, column: column)
                let reasons = matrix.trials.filter {
                    $0.profile == profile && column.scenarios.contains($0.scenario) && $0.reason != nil
                }.compactMap(\.reason).joined(separator: "\n")
                let (sign, word) =
                    switch verdict {
                    case .exposed: ("✗", "exposed")
                    case .notExposed: ("✓", "not exposed")
                    case .notApplicable: ("–", "not applicable")
                    }
                html += "<td class=\"\(verdict.rawValue)\" title=\"\(HTMLReport.attribute(reasons))\">"
                html += "\(sign) <span class=\"word\">\(word)</span></td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody></table></div></section>\n"
    }
}
