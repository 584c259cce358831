extension Duration {
    /// The duration in milliseconds, fractions kept: what logs, HARs and reports print (HAR 1.2
    /// times are milliseconds).
    public var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
