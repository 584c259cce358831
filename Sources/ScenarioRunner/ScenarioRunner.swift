import Foundation
import HTTPCore
import Locking
public import Scenario

/// Runs one scenario in a fresh world: builds it from the header, replays the steps, and
/// tears it down, whatever happens.
public enum ScenarioRunner {
    /// What one run gave: the result, every HTTP exchange for the HAR, and the recording of
    /// its steps (the HAR's pages); nil when the world could not be built.
    public struct Outcome: Sendable {
        public var result: ScenarioResult
        public var exchanges: [RecordedExchange]
        public var recording: RunRecording?
    }

    /// Runs `scenario` with `seed` (the scenario's own seed wins; `nil`, and none of its own:
    /// fresh randomness from the system). A scenario that outlives
    /// `timeLimitSeconds` (its own `timeout` wins) is stopped and reported as interrupted.
    /// With `replay`, it re-enacts a capture (see `ReplayTarget`).
    public static func run(
        _ scenario: Scenario, seed: UInt64?, timeLimitSeconds: Double = 120, replay: ReplayTarget? = nil,
        browsers: BrowserSelection = .init(), screenshots: ScreenshotPolicy = .auto
    ) async -> Outcome {
        let started = ContinuousClock.now
        let seed = scenario.seed ?? seed
        var result = ScenarioResult(
            name: scenario.name, file: scenario.location.file, description: scenario.description,
            tags: scenario.tags,
            status: .passed, seed: seed)
        let world: ScenarioWorld
        do {
            world = try await ScenarioWorld.build(scenario, seed: seed, replay: replay, browsers: browsers)
        } catch let error as ScenarioError {
            result.status = .failed
            result.failure = StepFailure(step: "setup", location: error.location, message: error.message)
            result.durationMilliseconds = milliseconds(since: started)
            return Outcome(result: result, exchanges: [], recording: nil)
        } catch {
            result.status = .failed
            result.failure = StepFailure(
                step: "setup", location: scenario.location, message: "cannot build the world: \(error)")
            result.durationMilliseconds = milliseconds(since: started)
            return Outcome(result: result, exchanges: [], recording: nil)
        }
        let execution = ScenarioExecution(world: world)
        let limit = scenario.timeLimitSeconds ?? timeLimitSeconds
        // The steps run on the world's libcurl thread: a response resumes the step that sent
        // the request on the thread that received it, with no hand-off to Swift's pool.
        let ending = await ScenarioRunner.race(limit: limit, on: world.world.curl.executor) {
            await execution.runScenario(scenario.steps)
        }
        switch ending {
        case .finished(let records, let failure):
            result.steps = records
            if let failure {
                result.status = .failed
                result.failure = failure
            }
        case .timedOut, .cancelled:
            let timedOut = ending.isTimeout
            result.status = .interrupted
            result.steps = execution.completedRecords()
            let stopped =
                timedOut
                ? "the scenario ran longer than its time limit of \(Int(limit)) s" : "the run was interrupted"
            if var branch = execution.pendingBranchFailure() {
                // The real failure: one branch failed while another held the block open.
                branch.message += " (then \(stopped), waiting for the other branches)"
                result.status = .failed
                result.failure = branch
            } else {
                result.failure = StepFailure(
                    step: execution.currentStep()?.name ?? "run",
                    location: execution.currentStep()?.location ?? scenario.location, message: stopped)
            }
        }
        let signedIn = ending.isFinished ? await world.signedInAtEnd() : [:]
        let exchanges = world.exchanges(pages: execution.pageStarts())
        var recorded = execution.recordedSteps()
        if !screenshots.keeps(
            status: result.status, embeddedIssuer: scenario.issuer.isEmbedded && replay == nil)
        {
            result.steps = result.steps.map { $0.withoutScreenshots() }
            for index in recorded.indices {
                recorded[index].record = recorded[index].record.withoutScreenshots()
            }
        }
        let recording = RunRecording(scenario: scenario, seed: seed, steps: recorded, signedInAtEnd: signedIn)
        // Terminating the apps cancels SDK calls still in flight (a timed-out step).
        await world.shutdown()
        result.durationMilliseconds = milliseconds(since: started)
        return Outcome(result: result, exchanges: exchanges, recording: recording)
    }
}

extension ScenarioRunner {
    enum Ending {
        case finished([StepRecord], StepFailure?)
        case timedOut
        case cancelled

        var isTimeout: Bool {
            if case .timedOut = self { return true }
            return false
        }

        var isFinished: Bool {
            if case .finished = self { return true }
            return false
        }
    }

    /// Runs `body` until it finishes, `limit` seconds pass, or the calling task is cancelled,
    /// whichever comes first. A body still running is left to the world's shutdown to stop.
    /// `body` prefers `executor` (`InheritedExecutor`); the time limit is kept on the global
    /// executor, so that it fires even if `body` holds its thread.
    static func race(
        limit: Double, on executor: (any TaskExecutor)? = nil,
        _ body: @escaping @Sendable () async -> ([StepRecord], StepFailure?)
    ) async -> Ending {
        let gate = ResumeOnce<Ending>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                gate.arm(continuation)
                Task {
                    let (records, failure) = await InheritedExecutor.run(on: executor) { await body() }
                    gate.resume(.finished(records, failure))
                }
                Task {
                    try? await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
                    gate.resume(.timedOut)
                }
            }
        } onCancel: {
            gate.resume(.cancelled)
        }
    }
}

/// A continuation resumed by whichever of several racers comes first; a resume before the
/// continuation is armed is kept and delivered when it is.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Value, Never>?, value: Value?, done: Bool)>(
        (nil, nil, false))

    func arm(_ continuation: CheckedContinuation<Value, Never>) {
        let pending: Value? = state.withLock { state in
            if let value = state.value, !state.done {
                state.done = true
                return value
            }
            state.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(returning: pending) }
    }

    func resume(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard !state.done, state.value == nil else { return nil }
            guard let continuation = state.continuation else {
                state.value = value
                return nil
            }
            state.done = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
