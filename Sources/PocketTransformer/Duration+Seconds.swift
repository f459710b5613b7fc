extension Duration {
    /// The duration in seconds as a floating-point number (for rates and log lines).
    package var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
