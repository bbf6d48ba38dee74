/// Exponential backoff after failed second-factor attempts.
///
/// The first `freeAttempts` failures cost nothing. Each one after that locks
/// attempts for `backoffBase · 2^(n−1)` seconds (n counting the failures past
/// the free ones), at most `backoffMax`. Failures are forgotten
/// `failureMemory` seconds after the last one, so no lock is permanent and an
/// attacker cannot lock a user out for good.
package enum Backoff {
    /// The failure count and lock end after one more failure at `now`.
    package static func next(failures: Int64, lastFailure: Int64, now: Int64,
                             limits: MFALimits) -> (failures: Int64, lockedUntil: Int64) {
        // The counts come from the store: saturate, never trap, on any value.
        let remembered = now.minus(lastFailure) > limits.failureMemory ? 0 : max(failures, 0)
        let count = remembered.plus(1)
        guard count > limits.freeAttempts else { return (count, 0) }
        let exponent = min(count - limits.freeAttempts - 1, 40)
        let (scaled, overflow) = limits.backoffBase.multipliedReportingOverflow(by: Int64(1) << exponent)
        let delay = overflow ? limits.backoffMax : min(scaled, limits.backoffMax)
        return (count, now.plus(delay))
    }
}
