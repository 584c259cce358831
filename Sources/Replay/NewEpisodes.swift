import HTTPCore
import Issuer

/// Where a `new-episodes` replay sends what the capture lacks, as VCR's `:new_episodes`
/// record mode sends unmatched requests to the live service.
public enum NewEpisodesTarget: Sendable, Hashable {
    /// An embedded issuer started for the replay, on loopback, on the replay's clock, with the
    /// capture's client registered (public, the capture's redirect URI).
    case embedded
    /// Any issuer, by base URL (`https://tenant.example.com`).
    case issuer(String)
}

/// Sends a request meant for the recorded issuer to another one: the recorded issuer's origin
/// (scheme, host, port) in the URL is replaced by the target's, the rest of the URL, the
/// headers and the body are sent as they are.
struct OriginRewritingTransport: HTTPTransport {
    let recordedOrigin: String
    let targetOrigin: String
    let inner: any HTTPTransport

    init?(recordedIssuer: String, target: String, inner: any HTTPTransport) {
        guard let recorded = URLParts.origin(of: recordedIssuer), let target = URLParts.origin(of: target)
        else {
            return nil
        }
        recordedOrigin = recorded
        targetOrigin = target
        self.inner = inner
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        var request = request
        request.url = rewritten(request.url)
        return try await inner.send(request)
    }

    /// The URL with the recorded origin swapped for the target's; other URLs unchanged.
    func rewritten(_ url: String) -> String {
        guard URLParts.origin(of: url) == recordedOrigin else { return url }
        let schemeEnd = url.range(of: "://").map(\.upperBound) ?? url.startIndex
        let rest = url[schemeEnd...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return targetOrigin + rest[authorityEnd...]
    }
}

extension NewEpisodesTarget {
    /// The tenant of an embedded fallback: the default one, with the capture's client added
    /// when the default tenant lacks it (public, the capture's redirect URI).
    static func tenant(for plan: ReplayPlan) -> Tenant {
        var tenant = Tenant.default
        if !tenant.clients.contains(where: { $0.id == plan.clientID }) {
            tenant.clients.append(ClientRegistration(id: plan.clientID, redirectURIs: [plan.redirectURI]))
        }
        return tenant
    }
}
