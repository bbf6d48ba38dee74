import Glibc

/// Where libmfa reads the time: Unix seconds.
///
/// Hosts inject their own to test expiry, backoff and TOTP steps.
public protocol MFAClock: Sendable {
    /// The current Unix time in seconds.
    func now() -> Int64
    /// The current Unix time in milliseconds, for ordering revocations
    /// within a second; by default `now()` × 1000.
    func nowMilliseconds() -> Int64
}

extension MFAClock {
    /// `now()` × 1000 (saturating).
    public func nowMilliseconds() -> Int64 {
        let (ms, overflow) = now().multipliedReportingOverflow(by: 1000)
        return overflow ? (now() < 0 ? .min : .max) : ms
    }
}

/// The system's real-time clock: the default.
public struct SystemClock: MFAClock {
    /// Creates the system clock.
    public init() {}

    /// `clock_gettime(CLOCK_REALTIME)`, in whole seconds.
    public func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }

    /// `clock_gettime(CLOCK_REALTIME)`, in milliseconds.
    public func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
