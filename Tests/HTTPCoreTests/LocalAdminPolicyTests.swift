import HTTPCore
import Testing

@Suite("LocalAdminPolicy")
struct LocalAdminPolicyTests {
    static let policy = LocalAdminPolicy(serviceURL: "http://127.0.0.1:8080")

    static func request(
        _ method: HTTPMethod = .get, host: String? = nil, origin: String? = nil, contentType: String? = nil
    ) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let host { headers.add(name: "Host", value: host) }
        if let origin { headers.add(name: "Origin", value: origin) }
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        return HTTPRequest(method: method, url: "http://127.0.0.1:8080/_admin/users", headers: headers)
    }

    /// The port comes from the service's URL, or its scheme's default.
    @Test("the service's port")
    func servicePort() {
        #expect(Self.policy.port == 8080)
        #expect(LocalAdminPolicy(serviceURL: "http://[::1]:9/apple").port == 9)
        #expect(LocalAdminPolicy(serviceURL: "http://issuer.test").port == 80)
        #expect(LocalAdminPolicy(serviceURL: "https://localhost/x").port == 443)
    }

    /// Loopback names with the service's port pass (no port only for a default port); anything
    /// a DNS-rebinding page would send does not.
    @Test(
        "Host",
        arguments: [
            ("127.0.0.1:8080", true), ("localhost:8080", true), ("LocalHost:8080", true),
            ("[::1]:8080", true),
            ("127.1.2.3:8080", true), (" 127.0.0.1:8080 ", true), ("127.0.0.1:08080", true),
            ("127.0.0.1", false), ("localhost", false), ("127.0.0.1:8081", false),
            ("attacker.example:8080", false),
            ("localhost.attacker.example:8080", false), ("128.0.0.1:8080", false), ("127.0.0:8080", false),
            ("127.0.0.256:8080", false), ("[::2]:8080", false), ("0.0.0.0:8080", false), ("::1:8080", false),
            ("", false), (":8080", false), ("127.0.0.1:8080x", false), ("127.0.0.1:999999", false),
        ])
    func host(_ host: String, _ allowed: Bool) {
        let refusal = Self.policy.refusal(of: Self.request(host: host))
        #expect((refusal == nil) == allowed, "\(host)")
        if let refusal {
            #expect(refusal.status == 403)
            #expect(refusal.error == "forbidden")
        }
    }

    /// A service on port 80 takes a Host without a port (what clients send for a default port).
    @Test("a default port may be left out")
    func defaultPort() {
        let policy = LocalAdminPolicy(serviceURL: "http://localhost")
        #expect(policy.refusal(of: Self.request(host: "localhost")) == nil)
        #expect(policy.refusal(of: Self.request(host: "127.0.0.1:")) == nil)
        #expect(policy.refusal(of: Self.request(host: "127.0.0.1:80")) == nil)
        #expect(policy.refusal(of: Self.request(host: "127.0.0.1:8080")) != nil)
    }

    /// No Host is an in-process call; two are refused.
    @Test("a missing or repeated Host")
    func missingOrRepeatedHost() {
        #expect(Self.policy.refusal(of: Self.request()) == nil)
        var twice = Self.request(host: "127.0.0.1:8080")
        twice.headers.add(name: "Host", value: "127.0.0.1:8080")
        #expect(Self.policy.refusal(of: twice)?.status == 403)
    }

    /// Only the service's own loopback origin passes.
    @Test(
        "Origin",
        arguments: [
            ("http://127.0.0.1:8080", true), ("http://localhost:8080", true), ("HTTP://[::1]:8080", true),
            ("null", false), ("https://127.0.0.1:8080", false), ("http://attacker.example", false),
            ("http://127.0.0.1:8081", false), ("http://127.0.0.1", false), ("http://", false),
            ("http://127.0.0.1:8080/path", false),
        ])
    func origin(_ origin: String, _ allowed: Bool) {
        let refusal = Self.policy.refusal(of: Self.request(host: "127.0.0.1:8080", origin: origin))
        #expect((refusal == nil) == allowed, "\(origin)")
        if let refusal { #expect(refusal.status == 403) }
    }

    /// Every POST must be application/json, parameters allowed; the CORS-safelisted types that
    /// a page may send without a preflight are 415.
    @Test(
        "POST content type",
        arguments: [
            ("application/json", true), ("application/json; charset=utf-8", true), ("Application/JSON", true),
            ("text/plain", false), ("application/x-www-form-urlencoded", false),
            ("multipart/form-data", false),
            ("application/jose+json", false), ("", false),
        ])
    func contentType(_ contentType: String, _ allowed: Bool) {
        let refusal = Self.policy.refusal(of: Self.request(.post, contentType: contentType))
        #expect((refusal == nil) == allowed, "\(contentType)")
        if let refusal {
            #expect(refusal.status == 415)
            #expect(refusal.error == "unsupported_media_type")
        }
        #expect(Self.policy.refusal(of: Self.request(.post))?.status == 415)
        #expect(Self.policy.refusal(of: Self.request(.delete)) == nil)
    }

    /// A CORS preflight is refused, whatever it carries.
    @Test("OPTIONS is refused")
    func preflight() {
        let refusal = Self.policy.refusal(
            of: Self.request(.options, host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080"))
        #expect(refusal?.status == 403)
        #expect(refusal?.description == "the admin API answers no CORS preflight")
    }
}
