// What every benchmark shares: timed loops, `openssl speed` as a baseline, the process's and the
// machine's usage, and the rows the figures are printed in.
import Cryptography
import Foundation

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

/// Operations counted over the seconds they took; tallies of several stretches add up.
struct Tally {
    var count = 0.0
    var seconds = 0.0
    var rate: Double { count / seconds }

    static func += (total: inout Tally, stretch: Tally) {
        total.count += stretch.count
        total.seconds += stretch.seconds
    }
}

/// Runs `concurrency` loops, each running `operation(loopIndex)` until `seconds` have passed:
/// the operations done and the time until the last loop ended.
func timedLoops(
    seconds: Double, concurrency: Int, _ operation: @escaping @Sendable (Int) async throws -> Void
) async throws -> Tally {
    let clock = ContinuousClock()
    let start = clock.now
    let limit = Duration.milliseconds(Int64(seconds * 1000))
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<concurrency {
            group.addTask {
                var count = 0
                while clock.now - start < limit {
                    try await operation(index)
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    return Tally(count: Double(total), seconds: (clock.now - start).inSeconds)
}

/// What this process and the machine have spent so far: the process's CPU seconds (user and
/// system) and context switches over every thread (`getrusage`), and the machine's CPU ticks
/// from `/proc/stat`, all of them and those the hypervisor gave to other guests (steal). On a
/// shared virtual machine the steal share of a stretch says how much of the cores it did not
/// have. Two readings subtract to what the stretch between them cost.
struct UsageReading {
    var cpuSeconds = 0.0
    var contextSwitches = 0.0
    var machineTicks = 0.0
    var stolenTicks = 0.0

    static func now() -> UsageReading {
        var reading = UsageReading()
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        reading.cpuSeconds = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        reading.contextSwitches = Double(usage.ru_nvcsw + usage.ru_nivcsw)
        // user nice system idle iowait irq softirq steal (guest time is inside user).
        if let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
        {
            let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            if fields.count >= 8 {
                reading.machineTicks = fields.prefix(8).reduce(0, +)
                reading.stolenTicks = fields[7]
            }
        }
        return reading
    }

    static func - (after: UsageReading, before: UsageReading) -> UsageReading {
        UsageReading(
            cpuSeconds: after.cpuSeconds - before.cpuSeconds,
            contextSwitches: after.contextSwitches - before.contextSwitches,
            machineTicks: after.machineTicks - before.machineTicks,
            stolenTicks: after.stolenTicks - before.stolenTicks)
    }

    /// The share of the machine's CPU time stolen during the stretch.
    var stolenShare: Double { stolenTicks / max(1, machineTicks) }

    /// The process's cost per one of `count` operations; the machine's ticks stay whole, so
    /// the steal share is unchanged.
    func per(_ count: Double) -> UsageReading {
        var cost = self
        cost.cpuSeconds /= count
        cost.contextSwitches /= count
        return cost
    }
}

/// CPU time each thread of this process has used so far, from `/proc/self/task/*/stat`
/// (user and system clock ticks), with the thread's name. Two readings subtract to what each
/// thread spent between them: the busiest thread of a stretch is the one that limits it when
/// it nears 100%.
struct ThreadTimes {
    /// Seconds of CPU by thread ID, and each thread's name.
    var seconds: [Int: Double] = [:]
    var names: [Int: String] = [:]

    static func now() -> ThreadTimes {
        var times = ThreadTimes()
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else {
            return times
        }
        for thread in threads {
            guard let id = Int(thread),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            // After the name: state, then fields 4…; utime and stime are fields 14 and 15 (proc(5)).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
                continue
            }
            times.seconds[id] = (user + system) / ticksPerSecond
            times.names[id] = String(stat[stat.index(after: open)..<close])
        }
        return times
    }

    static func - (after: ThreadTimes, before: ThreadTimes) -> ThreadTimes {
        var spent = ThreadTimes(names: after.names)
        for (id, seconds) in after.seconds { spent.seconds[id] = seconds - (before.seconds[id] ?? 0) }
        return spent
    }

    static func += (total: inout ThreadTimes, stretch: ThreadTimes) {
        for (id, seconds) in stretch.seconds { total.seconds[id, default: 0] += seconds }
        total.names.merge(stretch.names) { _, new in new }
    }

    /// The `count` busiest threads as "name NN%": their CPU over `wall` seconds.
    func busiest(_ count: Int, over wall: Double) -> String {
        seconds.sorted { $0.value > $1.value }.prefix(count).map { id, spent in
            String(format: "%@ %.0f%%", names[id] ?? "thread \(id)", spent / wall * 100)
        }.joined(separator: ", ")
    }
}

/// The middle value of `values` (the upper one of an even count).
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// Peak and current resident memory of this process, in MB (`VmHWM`, `VmRSS`).
func residentMemory() -> (peak: Double, current: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
        return (0, 0)
    }
    func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.split(separator: " ").compactMap { Double($0) }
            return (digits.first ?? 0) / 1024
        }
        return 0
    }
    return (field("VmHWM"), field("VmRSS"))
}

/// Why a benchmark stopped before it had a figure.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
