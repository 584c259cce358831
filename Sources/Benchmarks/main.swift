// signinsim-bench: throughput figures measured side by side with their baselines in one run.
// Usage: signinsim-bench crypto [--seconds S]
//        signinsim-bench issuer-core [--rounds R] [--refreshes N]
import Cryptography
import Foundation
import HTTPClient
import HTTPCore
import JOSE
import JSON
import Locking

/// Runs `body` repeatedly for about `seconds` and returns operations per second.
func measure(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
    // Warm up caches and lazy initialisation.
    for _ in 0..<50 { try body() }
    let clock = ContinuousClock()
    let start = clock.now
    let budget = Duration.milliseconds(Int64(seconds * 1000))
    var count = 0
    while true {
        for _ in 0..<64 { try body() }
        count += 64
        let elapsed = clock.now - start
        if elapsed >= budget { return Double(count) / elapsed.inSeconds }
    }
}

/// Rates from `openssl speed`, the baseline every crypto figure is compared with.
struct OpenSSLRates {
    var ecdsaSign = 0.0
    var ecdsaVerify = 0.0
    var rsaSign = 0.0
    var rsaVerify = 0.0
}

func runOpenSSLSpeed(seconds: Int, processes: Int = 1) throws -> OpenSSLRates {
    // popen rather than Foundation's Process: Process's pipe never reached end of file when
    // used from the async benchmarks here.
    guard
        let pipe = popen(
            "openssl speed -seconds \(seconds)\(processes > 1 ? " -multi \(processes)" : "") ecdsap256 rsa2048 2>/dev/null",
            "r")
    else {
        throw CryptoError(.unsupported, "cannot run openssl speed")
    }
    var output = ""
    var buffer = [CChar](repeating: 0, count: 4096)
    while fgets(&buffer, Int32(buffer.count), pipe) != nil {
        output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    pclose(pipe)
    var rates = OpenSSLRates()
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count >= 4, let verify = Double(fields[fields.count - 1]),
            let sign = Double(fields[fields.count - 2])
        else { continue }
        if line.hasPrefix("rsa 2048 bits") {
            rates.rsaSign = sign
            rates.rsaVerify = verify
        } else if line.contains("ecdsa (nistp256)") {
            rates.ecdsaSign = sign
            rates.ecdsaVerify = verify
        }
    }
    guard rates.ecdsaSign > 0, rates.rsaSign > 0 else {
        throw CryptoError(.unsupported, "could not read `openssl speed` output:\n\(output)")
    }
    return rates
}

func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func row(_ name: String, _ ours: Double, _ baseline: Double, _ baselineName: String, target: Double) -> String
{
    let ratio = ours / baseline
    let verdict = ratio >= target ? "meets" : "BELOW"
    return padded(name, 26) + String(format: "%9.0f/s   ", ours) + padded(baselineName, 26)
        + String(format: "%9.0f/s   ratio %5.1f%%   target %3.0f%%: ", baseline, ratio * 100, target * 100)
        + verdict
}

func benchCrypto(seconds: Double) throws {
    print("openssl speed -seconds \(Int(seconds.rounded(.up))) ecdsap256 rsa2048 …")
    let openssl = try runOpenSSLSpeed(seconds: Int(seconds.rounded(.up)))
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9".utf8)

    let p256 = try P256PrivateKey()
    let p256Public = p256.publicKey
    let ecSignature = try p256.signature(for: message)
    let rsa = try RSAPrivateKey(bits: 2048)
    let rsaPublic = rsa.publicKey
    let rsaSignature = try rsa.signature(for: message, padding: .pkcs1v15)

    let es256Sign = try measure(seconds: seconds) { _ = try p256.signature(for: message) }
    let es256Verify = measure(seconds: seconds) {
        precondition(p256Public.isValidSignature(ecSignature, for: message))
    }
    let rs256Sign = try measure(seconds: seconds) { _ = try rsa.signature(for: message, padding: .pkcs1v15) }
    let rs256Verify = measure(seconds: seconds) {
        precondition(rsaPublic.isValidSignature(rsaSignature, for: message, padding: .pkcs1v15))
    }

    // A whole JWT: claims encoded, header encoded, signed, serialised.
    let signer = try JWSSigner(key: .p256(p256), algorithm: .es256, keyID: "bench")
    var counter: Int64 = 0
    let jwtSign = try measure(seconds: seconds) {
        counter += 1
        let claims = JWTClaims(
            issuer: "http://127.0.0.1:8080", subject: "auth0|alice", audience: .single("com.example.app"),
            expiresAt: 1_800_000_000 + counter, issuedAt: 1_799_996_400 + counter, jwtID: "jti-\(counter)",
            nonce: "n-0S6_WzA2Mj",
            otherClaims: ["scope": "openid profile email", "email": "alice@example.com"])
        _ = try JWT.sign(claims, signer: signer)
    }

    print("")
    print("Swift API (one thread) next to `openssl speed` (one thread), same machine, same run:")
    print(row("ES256 sign", es256Sign, openssl.ecdsaSign, "openssl ecdsap256 sign", target: 0.8))
    print(row("ES256 verify", es256Verify, openssl.ecdsaVerify, "openssl ecdsap256 verify", target: 0.8))
    print(row("RS256 sign", rs256Sign, openssl.rsaSign, "openssl rsa2048 sign", target: 0.8))
    print(row("RS256 verify", rs256Verify, openssl.rsaVerify, "openssl rsa2048 verify", target: 0.8))
    print(row("JWT sign (ES256, whole)", jwtSign, es256Sign, "raw ES256 sign (above)", target: 0.6))
}

// MARK: - Native Apple exchanges

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

let arguments = Array(CommandLine.arguments.dropFirst())
var seconds = 3.0
if let index = arguments.firstIndex(of: "--seconds"), index + 1 < arguments.count,
    let value = Double(arguments[index + 1])
{
    seconds = value
}
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

switch arguments.first {
case "apple":
    guard let issuer = option("--issuer"), let apple = option("--apple") else {
        FileHandle.standardError.write(
            Data("usage: signinsim-bench apple --issuer URL --apple URL [--seconds S] [--workers N]\n".utf8))
        exit(64)
    }
    do {
        try await benchApple(
            issuer: issuer, apple: apple, seconds: seconds,
            workers: option("--workers").flatMap { Int($0) } ?? 4)
    } catch {
        FileHandle.standardError.write(Data("signinsim-bench: \(error)\n".utf8))
        exit(1)
    }
case "client":
    do {
        try await benchClient(
            seconds: seconds, devices: option("--devices").flatMap { Int($0) } ?? 1000,
            concurrency: option("--concurrency").flatMap { Int($0) } ?? 4,
            rows: option("--rows").map { Set($0.split(separator: ",").map(String.init)) })
    } catch {
        FileHandle.standardError.write(Data("signinsim-bench: \(error)\n".utf8))
        exit(1)
    }
case "issuer-core":
    do {
        try benchIssuerCore(
            rounds: option("--rounds").flatMap { Int($0) } ?? 5,
            refreshesPerRound: option("--refreshes").flatMap { Int($0) } ?? 20000)
    } catch {
        FileHandle.standardError.write(Data("signinsim-bench: \(error)\n".utf8))
        exit(1)
    }
case "crypto":
    do {
        try benchCrypto(seconds: seconds)
    } catch {
        FileHandle.standardError.write(Data("signinsim-bench: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(
        Data("usage: signinsim-bench crypto|issuer-core|apple|client [--seconds S]\n".utf8))
    exit(64)
}
