import Glibc

/// Where libmfa reads the time: Unix seconds.
///
/// Hosts inject their own to test expiry, backoff and TOTP steps.
public protocol MFAClock: Sendable {
    /// The current Unix time in seconds.
    func now() -> Int64
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
}
