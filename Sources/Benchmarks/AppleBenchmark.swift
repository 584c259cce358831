import Cryptography
import Foundation
import HTTPClient
import HTTPCore
import JSON
import Locking

/// What one native Apple exchange costs in cryptography, counted from the code path:
/// the device's identity token (Apple, RS256 sign); the issuer's client secret (ES256 sign),
/// checked by Apple (ES256 verify); Apple's `id_token` (RS256 sign), checked by the issuer
/// (RS256 verify); the issuer's access and ID tokens (2 × ES256 sign).
struct ExchangeCryptography {
    static let rsaSigns = 2.0
    static let rsaVerifies = 1.0
    static let ecSigns = 3.0
    static let ecVerifies = 1.0

    /// Exchanges per second if the cryptography were all there was, at these rates (one core).
    static func floor(_ rates: OpenSSLRates) -> Double {
        let seconds =
            rsaSigns / rates.rsaSign + rsaVerifies / rates.rsaVerify + ecSigns / rates.ecdsaSign
            + ecVerifies / rates.ecdsaVerify
        return 1 / seconds
    }
}

/// Counts shared by the benchmark's concurrent clients.
final class ExchangeTally: Sendable {
    let completed = Mutex(0)
    let failures = Mutex<[String]>([])
}

/// Device authorizations at Apple, then RFC 8693 exchanges at the issuer, over loopback.
func benchApple(issuer: String, apple: String, seconds: Double, workers: Int) async throws {
    print("openssl speed -seconds \(Int(seconds.rounded(.up))) ecdsap256 rsa2048 …")
    // Process waits on a thread of its own, away from the async main context.
    let rates = try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runOpenSSLSpeed(seconds: Int(seconds.rounded(.up))) })
        }
    }
    let transport = CurlTransport(cookieJar: nil)
    let tally = ExchangeTally()
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int64(seconds * 1000))

    @Sendable func oneExchange(worker: Int, index: Int) async throws {
        let authorization = try await transport.send(
            .json(
                url: apple + "/_admin/authorize",
                body: [
                    "email": .string("bench-\(worker)-\(index)@example.com"), "given_name": "Bench",
                    "family_name": .string("User \(index)"), "bundle_id": "com.example.app",
                    "scopes": ["fullName", "email"],
                ]))
        guard authorization.status == 200 || authorization.status == 201,
            let code = try authorization.jsonBody()["authorization_code"]?.stringValue
        else {
            throw CryptoError(
                .invalidInput,
                "Apple authorize answered \(authorization.status): \(authorization.bodyText ?? "")")
        }
        let exchange = try await transport.send(
            .form(
                url: issuer + "/oauth/token",
                parameters: [
                    "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": code,
                    "subject_token_type": "http://auth0.com/oauth/token-type/apple-authz-code",
                    "client_id": "com.example.app", "scope": "openid profile email offline_access",
                    "user_profile": #"{"name":{"firstName":"Bench","lastName":"User"}}"#,
                ]))
        guard exchange.status == 200, try exchange.jsonBody()["id_token"] != nil else {
            throw CryptoError(
                .invalidInput, "exchange answered \(exchange.status): \(exchange.bodyText ?? "")")
        }
    }

    // Warm up: JWKS fetches and connection set-up are not part of the steady state.
    for index in 0..<5 { try await oneExchange(worker: 99, index: index) }
    let started = clock.now
    await withTaskGroup(of: Void.self) { group in
        for worker in 0..<workers {
            group.addTask {
                var index = 0
                while clock.now < deadline {
                    do {
                        try await oneExchange(worker: worker, index: index)
                        tally.completed.withLock { $0 += 1 }
                    } catch {
                        tally.failures.withLock { if $0.count < 5 { $0.append("\(error)") } }
                    }
                    index += 1
                }
            }
        }
    }
    let rate = Double(tally.completed.withLock { $0 }) / (clock.now - started).inSeconds
    let floor = ExchangeCryptography.floor(rates)
    print("")
    print(
        "native Apple exchange (device authorize -> /oauth/token -> issuer redeems at Apple -> tokens), loopback,"
    )
    print("\(workers) concurrent clients for \(Int(seconds)) s:")
    print(
        String(
            format: "  measured                  %9.1f exchanges/s  (%d exchanges, %d failed)", rate,
            tally.completed.withLock { $0 }, tally.failures.withLock { $0.count }))
    print(
        String(
            format:
                "  cryptography floor        %9.1f exchanges/s  (2 RS256 sign, 1 RS256 verify, 3 ES256 sign, 1 ES256 verify",
            floor)
            + String(
                format: " at openssl speed: RSA %.0f/%.0f, ECDSA %.0f/%.0f per s, one core)", rates.rsaSign,
                rates.rsaVerify, rates.ecdsaSign, rates.ecdsaVerify))
    print(
        String(format: "  ratio                     %9.1f%%            (target >= 60%%)", rate / floor * 100))
    for failure in tally.failures.withLock({ $0 }) { print("  failure: \(failure)") }
}
