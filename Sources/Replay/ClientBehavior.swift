import HTTPCore
import JSON
import OAuthCore
import Recordings
import SignInSDK

/// What a capture shows of the recorded app's SDK, in terms of the SDK behaviour profiles:
/// refreshes raced with one refresh token are the `naive` strategy (field bug 1); a refresh
/// presenting a token an earlier answer had already replaced, after the app was relaunched, is
/// `persist-late` (field bug 2: the rotated token was handed to the app but not stored before
/// the process died); such a refresh refused with `invalid_grant` (RFC 6749 §5.2) and retried
/// at once with the newer token is `stale-refresh-copy` (the app refreshed with its own stale
/// copy of the credentials, and the SDK recovered with the stored token).
struct ClientBehavior {
    /// The profile that reproduces what the capture shows (`default` when nothing stands out).
    var profile: BehaviorProfile
    /// Why, with the entries that show it (numbered from 1).
    var findings: [String]

    init(_ analysis: CaptureAnalysis) {
        let exchanges = analysis.capture.exchanges
        var profile = BehaviorProfile.default
        var findings: [String] = []
        // Refreshes by the app, in time order, with the token each presented and the one each
        // answer handed out.
        var replaced: [String: Int] = [:]
        var relaunchedAfter: [Int] = []
        var previousEnd = -Double.infinity
        var previousToken: String?
        var raced: Int?
        var stale: (entry: Int, replacedBy: Int)?
        for index in analysis.timeline {
            let entry = analysis.entries[index]
            let exchange = exchanges[index]
            if entry.role == .discovery, entry.sender == .app { relaunchedAfter.append(index) }
            guard entry.role == .token, entry.sender == .app else { continue }
            let form = CaptureAnalysis.form(exchange)
            if form["grant_type"] == GrantType.refreshToken, let token = form["refresh_token"] {
                let start = exchange.sendingMoment
                if token == previousToken, start < previousEnd, raced == nil { raced = index }
                // Presented after the answer that replaced it had come back (not a race).
                if stale == nil, let by = replaced[token], start >= exchanges[by].answerMoment {
                    stale = (index, by)
                }
                previousToken = token
                previousEnd = max(previousEnd, exchange.answerMoment)
            }
            if exchange.status == 200, let body = try? JSONValue.parseObject(exchange.responseBody),
                let issued = body["refresh_token"]?.stringValue,
                let presented = form["refresh_token"], issued != presented
            {
                replaced[presented] = index
            }
        }
        if let raced {
            profile.refreshStrategy = .naive
            findings.append(
                "entry \(analysis.capture.entryNumber(of: raced)) is a refresh sent while another with the "
                    + "same refresh token was in flight: the naive refresh strategy (field bug 1)")
        }
        let retries = Self.staleRetries(analysis)
        if let (retry, refused) = retries.min(by: { $0.value < $1.value }) {
            profile.faults.insert(.staleRefreshCopy)
            findings.append(
                "entry \(analysis.capture.entryNumber(of: refused)) presents a refresh token an earlier answer "
                    + "had already replaced and is refused (invalid_grant), and entry "
                    + "\(analysis.capture.entryNumber(of: retry)) retries at once with the newer one: the app "
                    + "refreshed with a stale copy of its credentials and recovered with the stored token "
                    + "(stale-refresh-copy)")
        }
        if let stale, !retries.values.contains(stale.entry) {
            let relaunched = relaunchedAfter.contains { index in
                analysis.timeline.firstIndex(of: index).map { position in
                    let staleAt = analysis.timeline.firstIndex(of: stale.entry) ?? 0
                    let replacedAt = analysis.timeline.firstIndex(of: stale.replacedBy) ?? 0
                    return position > replacedAt && position < staleAt
                } ?? false
            }
            let description =
                "entry \(analysis.capture.entryNumber(of: stale.entry)) presents a refresh token that entry "
                + "\(analysis.capture.entryNumber(of: stale.replacedBy)) had already replaced"
            if relaunched {
                profile.faults.insert(.persistLate)
                findings.append(
                    description
                        + ", after a relaunch: the rotated token was not stored before the process died "
                        + "(persist-late, field bug 2)")
            } else {
                findings.append(
                    description
                        + " without a relaunch between: no SDK profile does that (a second copy of the app, "
                        + "or a lost answer)")
            }
        }
        self.profile = profile
        self.findings = findings
    }

    /// The refreshes that retried a refused stale one at once, each with the refused one (both
    /// exchange indices): a refresh presenting a token an earlier answer had replaced, answered
    /// `invalid_grant` (sent after that answer had come back: not a race), then the app's next
    /// token request a refresh that presents the newest refresh token issued before it, sent
    /// after the refusal came back.
    static func staleRetries(_ analysis: CaptureAnalysis) -> [Int: Int] {
        let exchanges = analysis.capture.exchanges
        // Each replaced token, with when the answer that replaced it came back.
        var replaced: [String: Double] = [:]
        var newest: String?
        var refused: (entry: Int, newest: String, end: Double)?
        var retries: [Int: Int] = [:]
        for index in analysis.timeline {
            let entry = analysis.entries[index]
            guard entry.role == .token, entry.sender == .app else { continue }
            let exchange = exchanges[index]
            let form = CaptureAnalysis.form(exchange)
            let presented = entry.grant == GrantType.refreshToken ? form["refresh_token"] : nil
            if let pending = refused, let presented, presented == pending.newest,
                exchange.sendingMoment >= pending.end
            {
                retries[index] = pending.entry
            }
            refused = nil
            // Sent after the answer that replaced it had come back: not a race.
            if let presented, let replacedAt = replaced[presented], exchange.sendingMoment >= replacedAt,
                let newest, presented != newest, entry.summary.oauthError == OAuthErrorCode.invalidGrant
            {
                refused = (index, newest, exchange.answerMoment)
            }
            if exchange.status == 200, let body = try? JSONValue.parseObject(exchange.responseBody),
                let issued = body["refresh_token"]?.stringValue
            {
                if let presented, presented != issued, replaced[presented] == nil {
                    replaced[presented] = exchange.answerMoment
                }
                newest = issued
            }
        }
        return retries
    }
}
