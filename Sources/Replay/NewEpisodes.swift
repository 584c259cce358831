import HTTPClient
import HTTPCore
import Issuer
import JSON
import Locking
import Recordings

/// Where a `new-episodes` replay sends what the capture lacks, as VCR's `:new_episodes`
/// record mode sends unmatched requests to the live service.
public enum NewEpisodesTarget: Sendable, Hashable {
    /// An embedded issuer started for the replay, on loopback, on the replay's clock, with the
    /// capture's clients registered (public, the capture's redirect URIs).
    case embedded
    /// Any issuer, by its identifier (`https://tenant.example.com`); its endpoints are read
    /// from its discovery document.
    case issuer(String)
}

/// Sends a request meant for the recorded issuer to the endpoint of the same role at another
/// issuer: the recorded token endpoint `/o/token/` becomes the target's `/oauth/token`, and so
/// on for every role the capture shows (authorization, token, userinfo, revocation,
/// end-session, key set, discovery). A request to the recorded issuer's origin whose role is
/// not known (a login page) keeps its path on the target's origin; other URLs (the target's
/// own pages, reached through its redirects) go as they are. The headers and the body are sent
/// unchanged.
final class RoleMappingTransport: HTTPTransport, Sendable {
    let analysis: CaptureAnalysis
    let targetIssuer: String
    /// The app's requests go without cookies; the browser's keep a jar of their own, as the
    /// target's login pages need.
    private let app = CurlTransport(cookieJar: nil)
    private let browser = CurlTransport(cookieJar: CookieJar())
    private let recordedOrigin: String?
    private let targetOrigin: String?
    /// The target's endpoints by role, read from its discovery document on first use.
    private let targetEndpoints = Mutex<[CaptureAnalysis.Role: String]?>(nil)

    init(analysis: CaptureAnalysis, targetIssuer: String) {
        self.analysis = analysis
        self.targetIssuer = targetIssuer
        recordedOrigin = analysis.issuer.flatMap(URLParts.origin(of:))
        targetOrigin = URLParts.origin(of: targetIssuer)
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        if targetEndpoints.withLock({ $0 }) == nil { await readTargetDiscovery() }
        var request = request
        request.url = mapped(request.url)
        let transport = RequestInitiator.current?.agent == .browser ? browser : app
        return try await transport.send(request)
    }

    /// The target's URL for a recorded one.
    func mapped(_ url: String) -> String {
        let path = URLParts.path(of: url)
        let base = URLParts.stripQueryAndFragment(url)
        let suffix = String(url.dropFirst(base.count))
        if let endpoints = targetEndpoints.withLock({ $0 }) {
            for (role, recorded) in analysis.endpoints where URLParts.path(of: recorded) == path {
                if let target = endpoints[role] { return target + suffix }
            }
        }
        guard let recordedOrigin, let targetOrigin, URLParts.origin(of: url) == recordedOrigin else {
            return url
        }
        return targetOrigin + url.dropFirst(recordedOrigin.count)
    }

    private func readTargetDiscovery() async {
        var issuer = targetIssuer
        while issuer.hasSuffix("/") { issuer.removeLast() }
        var endpoints: [CaptureAnalysis.Role: String] = [
            .discovery: issuer + "/.well-known/openid-configuration"
        ]
        if let response = try? await app.send(HTTPRequest(url: issuer + "/.well-known/openid-configuration")),
            response.status == 200, let document = try? JSONValue.parseObject(response.body)
        {
            let roles: [(String, CaptureAnalysis.Role)] = [
                ("authorization_endpoint", .authorization), ("token_endpoint", .token),
                ("userinfo_endpoint", .userinfo), ("revocation_endpoint", .revocation),
                ("end_session_endpoint", .endSession), ("jwks_uri", .jwks),
            ]
            for (member, role) in roles {
                if let url = document[member]?.stringValue { endpoints[role] = url }
            }
        }
        targetEndpoints.withLock { $0 = $0 ?? endpoints }
    }
}

extension NewEpisodesTarget {
    /// The tenant of an embedded fallback: the default one, with each client of the capture
    /// added when the default tenant lacks it (public, the capture's redirect URIs).
    static func tenant(for analysis: CaptureAnalysis) -> Tenant {
        var tenant = Tenant.default
        for client in analysis.clientIDs where !tenant.clients.contains(where: { $0.id == client }) {
            let redirects = analysis.signIns.filter { $0.clientID == client }.compactMap(\.redirectURI)
            tenant.clients.append(
                ClientRegistration(
                    id: client,
                    redirectURIs: redirects.isEmpty ? analysis.redirectURIs : Array(Set(redirects)).sorted()))
        }
        return tenant
    }
}
