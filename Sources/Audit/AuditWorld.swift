import Clocks
public import HTTPCore
public import Issuer
public import Simulator
import WebAuthSession
public import WebKitSession

/// Where an audit runs: a simulated world with one phone, against the embedded issuer (whose
/// clock the audit may move) or a real one (whose clock it can only wait for).
public enum AuditWorld {
    /// The embedded tenant's second, confidential client: the binding checks redeem the main
    /// client's codes and refresh tokens as it.
    public static let peerClient = AuditClient(id: "com.example.audit-peer", secret: "audit-peer-secret")

    /// The tenant `signinsim audit` audits without `--issuer`: `base` with the peer client
    /// added, registered for the same redirect URIs, and pushed authorization requests (RFC
    /// 9126) allowed where `base` has them off, so that the PAR checks run.
    public static func tenant(_ base: Tenant = .default) -> Tenant {
        var tenant = base
        if tenant.pushedAuthorizationRequests == .off { tenant.pushedAuthorizationRequests = .allowed }
        guard tenant.client(peerClient.id) == nil, let app = tenant.client("com.example.app") else {
            return tenant
        }
        var peer = ClientRegistration(
            id: peerClient.id, name: "Audit peer", secret: peerClient.secret, redirectURIs: app.redirectURIs,
            postLogoutRedirectURIs: app.postLogoutRedirectURIs)
        peer.grantTypes = app.grantTypes
        tenant.clients.append(peer)
        return tenant
    }

    /// What to audit at the embedded issuer: its default app, alice, every registered redirect.
    public static func embeddedTarget(issuer: String, engine: BrowserEngine = .lite) -> AuditTarget {
        var target = AuditTarget(
            issuer: issuer, client: AuditClient(id: "com.example.app"),
            redirectURI: "com.example.app://auth/callback",
            person: .signIn(username: "alice@example.com", password: "alice-password"), engine: engine)
        target.otherClient = peerClient
        target.loopbackRedirectURI = "http://127.0.0.1/callback"
        target.postLogoutRedirectURI = "com.example.app://auth/logout"
        return target
    }

    /// Audits the embedded issuer with `tenant`, after arming `faults` on it.
    ///
    /// - Parameter adjust: changes the target before the run (the checks selected, say).
    public static func auditEmbedded(
        tenant: Tenant = AuditWorld.tenant(), faults: [FaultInjection] = [], seed: UInt64? = 0,
        engine: BrowserEngine = .lite, webKit: WebKitEngine? = nil,
        adjust: (inout AuditTarget) -> Void = { _ in }
    ) async throws -> (scorecard: Scorecard, world: SimulationWorld, phone: SimulatedPhone) {
        let world = try await SimulationWorld.embedded(
            tenant: tenant, seed: seed, epoch: SystemWallClock().now(), webKit: webKit)
        guard let identity = world.identity else {
            await world.shutdown()
            throw SimulatorError("the embedded issuer did not start")
        }
        do {
            for fault in faults { try identity.issuer.inject(fault) }
            let phone = try world.addPhone()
            var target = embeddedTarget(issuer: identity.issuerURL, engine: engine)
            adjust(&target)
            let scheduler = world.scheduler
            let scorecard = await Auditor.run(
                target, on: phone, now: { scheduler.wallClock.now() },
                wait: { seconds in
                    _ = scheduler.advance(by: .seconds(seconds))
                    return true
                })
            return (scorecard, world, phone)
        } catch {
            await world.shutdown()
            throw error
        }
    }

    /// Audits a real issuer from a phone of a world of its own. The issuer's clock is the
    /// wall's: waiting means sleeping, and only when `target.waitsForCodeExpiry` allows it.
    public static func auditExternal(_ target: AuditTarget, seed: UInt64?, webKit: WebKitEngine?) async throws
        -> (scorecard: Scorecard, world: SimulationWorld, phone: SimulatedPhone)
    {
        let world = SimulationWorld.external(seed: seed, webKit: webKit)
        do {
            let phone = try world.addPhone()
            let allowed = target.waitsForCodeExpiry
            let scorecard = await Auditor.run(
                target, on: phone, now: { SystemWallClock().now() },
                wait: { seconds in
                    guard allowed else { return false }
                    try? await Task.sleep(for: .seconds(seconds))
                    return true
                })
            return (scorecard, world, phone)
        } catch {
            await world.shutdown()
            throw error
        }
    }
}
