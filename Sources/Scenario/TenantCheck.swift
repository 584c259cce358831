public import WorldVocabulary
public import YAML

/// Reads a scenario's `tenant:` (the embedded issuer's tenant document, a YAML node of `file`)
/// as the issuer will, and throws its first problem with the place in `file`.
///
/// The scenario format links no engine, so it cannot read a tenant itself: a caller that links
/// the issuer hands over its tenant loader's check (`TenantLoader.check(node:fileName:)`), and
/// `ScenarioLoader` then reports a tenant's problems (a misspelt `pages`, an unknown key) with
/// the scenario's others. Without one, the tenant is read when the run builds its issuer.
public typealias TenantCheck = @Sendable (_ node: YAMLNode, _ file: String) throws(TenantError) -> Void
