/// What a scalar means once resolved against the YAML 1.2 core schema (YAML 1.2 §10.3).
public enum YAMLValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
}
