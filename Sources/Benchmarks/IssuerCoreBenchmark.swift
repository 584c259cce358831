import Clocks
import Cryptography
import Foundation
import HTTPCore
import Issuer
import JSON

/// The issuer's own cost of one refresh-token grant, in process: the request as the server
/// hands it over, the endpoint, the answer, and nothing of HTTP or the kernel. Printed next to
/// the two ES256 signatures each refresh makes (access and ID token), the part no code around
/// them can remove. One thread, so that the figure is CPU per refresh; each round is a fresh
/// batch of tokens, and the best round is reported (the one least disturbed by the machine).
func benchIssuerCore(rounds: Int, refreshesPerRound: Int) throws {
    let issuer = try Issuer(baseURL: "http://127.0.0.1:8080", clock: OffsetWallClock())
    let key = try P256PrivateKey()
    let signingInput = Array(
        "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiYXQrand0In0.eyJpc3MiOiJodHRwOi8vMTI3LjAuMC4xIn0".utf8)
    var best = Double.infinity
    var bestSign = Double.infinity
    for _ in 0..<rounds {
        let tokens = try mintRefreshTokens(issuer, count: refreshesPerRound)
        let requests = tokens.map { token in
            HTTPRequest.form(
                url: "http://127.0.0.1:8080/oauth/token",
                parameters: [
                    "grant_type": "refresh_token", "client_id": "com.example.app", "refresh_token": token,
                ])
        }
        let clock = ContinuousClock()
        let start = clock.now
        for request in requests {
            guard case .response(let response) = issuer.respondImmediately(to: request),
                response.status == 200
            else { throw BenchmarkFailure("a refresh was refused") }
        }
        best = min(best, (clock.now - start).inSeconds / Double(requests.count))
        let signStart = clock.now
        for _ in 0..<requests.count {
            _ = try key.signature(for: signingInput)
            _ = try key.signature(for: signingInput)
        }
        bestSign = min(bestSign, (clock.now - signStart).inSeconds / Double(requests.count))
    }
    print("refresh_token grant in process (one thread, best of \(rounds) rounds of \(refreshesPerRound)):")
    print(String(format: "  whole grant         %7.1f µs per refresh", best * 1e6))
    print(String(format: "  two ES256 signs     %7.1f µs (the part that cannot go)", bestSign * 1e6))
    print(String(format: "  everything else     %7.1f µs", (best - bestSign) * 1e6))
}

/// Refresh tokens for Alice minted through the admin API, each to be used once.
private func mintRefreshTokens(_ issuer: Issuer, count: Int) throws -> [String] {
    let body: JSONValue = [
        "client_id": "com.example.app", "email": "alice@example.com",
        "scope": "openid profile email offline_access", "count": .int(Int64(count)),
    ]
    let request = HTTPRequest(
        method: .post, url: "http://127.0.0.1:8080/_admin/tokens",
        headers: ["Content-Type": "application/json"], body: body.serialized())
    guard case .response(let response) = issuer.respondImmediately(to: request), response.status == 201,
        let tokens = try JSONValue.parseObject(response.body)["refresh_tokens"]?.arrayValue
    else {
        throw BenchmarkFailure("could not mint refresh tokens")
    }
    return tokens.compactMap { $0.stringValue }
}
