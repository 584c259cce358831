// signinsim-bench: throughput figures measured side by side with their baselines in one run.
// Usage: signinsim-bench crypto [--seconds S]
//        signinsim-bench issuer-core [--rounds R] [--refreshes N]
//        signinsim-bench apple --issuer URL --apple URL [--seconds S] [--workers N]
//        signinsim-bench client [--seconds S] [--devices N] [--concurrency C] [--rows R,...]
//        signinsim-bench report [--rounds R] [--output FILE]
//        signinsim-bench browser [--rounds R] [--sign-ins N] [--sheets K] [--sequential M]
// scripts/bench runs them (and the suites that need a server or wrk); docs/benchmarks.md says
// what each one measures. One file per benchmark, shared helpers in Measurement.swift.
import Foundation

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
case "browser":
    do {
        try await benchBrowser(
            rounds: option("--rounds").flatMap { Int($0) } ?? 5,
            signIns: option("--sign-ins").flatMap { Int($0) } ?? 20,
            openSheets: option("--sheets").flatMap { Int($0) } ?? 5,
            sequential: option("--sequential").flatMap { Int($0) } ?? 200)
    } catch {
        FileHandle.standardError.write(Data("signinsim-bench: \(error)\n".utf8))
        exit(1)
    }
case "report":
    do {
        try await benchReport(
            rounds: option("--rounds").flatMap { Int($0) } ?? 5,
            output: option("--output") ?? NSTemporaryDirectory() + "/signinsim-bench-report.html")
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
        Data("usage: signinsim-bench crypto|issuer-core|apple|client|report|browser [--seconds S]\n".utf8))
    exit(64)
}
