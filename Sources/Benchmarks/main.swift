// signinsim-bench: throughput figures measured side by side with their baselines in one run.
// Usage: signinsim-bench crypto [--seconds S]
import Cryptography
import Foundation
import JOSE
import JSON

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
        if elapsed >= budget {
            let (whole, attoseconds) = elapsed.components
            return Double(count) / (Double(whole) + Double(attoseconds) / 1e18)
        }
    }
}

/// Rates from `openssl speed`, the baseline every crypto figure is compared with.
struct OpenSSLRates {
    var ecdsaSign = 0.0
    var ecdsaVerify = 0.0
    var rsaSign = 0.0
    var rsaVerify = 0.0
}

func runOpenSSLSpeed(seconds: Int) throws -> OpenSSLRates {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "speed", "-seconds", String(seconds), "ecdsap256", "rsa2048"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
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

let arguments = Array(CommandLine.arguments.dropFirst())
var seconds = 3.0
if let index = arguments.firstIndex(of: "--seconds"), index + 1 < arguments.count,
    let value = Double(arguments[index + 1])
{
    seconds = value
}
switch arguments.first {
case "crypto":
    do {
        try benchCrypto(seconds: seconds)
    } catch {
        FileHandle.standardError.write(Data("signinsim-bench: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data("usage: signinsim-bench crypto [--seconds S]\n".utf8))
    exit(64)
}
