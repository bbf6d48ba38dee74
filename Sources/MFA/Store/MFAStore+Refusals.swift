extension MFAStore {
    /// Counts a refused attempt as a failed one against the factor and the
    /// user (`UncountedRefusals`): the user's row locked, the failure
    /// counted and the backoff started or lengthened as for a wrong code.
    /// No assertion is judged here: the transaction holds the write lock
    /// only for the bookkeeping.
    package func countRefusal(enrollmentID: String, tenant: String, uid: String, now: Int64, limits: MFALimits,
                              audit: AuditNote<FailureOutcome>? = nil) throws(MFAError) -> FailureOutcome {
        try database.transaction { (db) throws(MFAError) -> FailureOutcome in
            try Self.lockUser(db, tenant, uid, dialect)
            let outcome = try Self.countFailure(db, enrollmentID: enrollmentID, tenant: tenant, uid: uid, now: now,
                                                limits: limits)
            try audit?.record(db, outcome, dialect)
            return outcome
        }
    }
}
