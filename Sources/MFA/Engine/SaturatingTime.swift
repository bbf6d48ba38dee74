/// Time arithmetic that cannot trap: the clock is the host's, and any
/// Int64 may come back from it or be passed as an auth time.
extension Int64 {
    /// `self + other`, clamped to the Int64 range.
    @inline(__always)
    package func plus(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, clamped to the Int64 range.
    @inline(__always)
    package func minus(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
