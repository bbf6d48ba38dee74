extension MFAMetrics {
    /// The metrics now (no families when metrics are off).
    public func snapshot() -> MetricsSnapshot {
        guard let context else { return MetricsSnapshot(families: []) }
        let blocks = blocks()
        let labelled = options.tenantLimit > 0
        let kinds = layout.kinds.indices
        let outcomes = MetricOutcome.allCases
        /// A family of the tenant blocks: the project's series (or the only
        /// block's) all written, zeros included; a tenant's only once counted.
        func perTenant(_ name: String, _ help: String, _ series: [([MetricLabel], Int)]) -> MetricFamily {
            var samples: [MetricSample] = []
            for (position, block) in blocks.enumerated() {
                for (labels, index) in series {
                    let value = block.counters.load(index)
                    guard position == 0 || value != 0 else { continue }
                    samples.append(MetricSample(labels: labelled ? labels + [MetricLabel("tenant", block.tenant)]
                                                                 : labels, value: value))
                }
            }
            return MetricFamily(name: name, help: help, type: .counter, samples: samples)
        }
        /// A counter family of the context block.
        func perContext(_ name: String, _ help: String, _ series: [([MetricLabel], Int)]) -> MetricFamily {
            MetricFamily(name: name, help: help, type: .counter,
                         samples: series.map { MetricSample(labels: $0.0, value: context.load($0.1)) })
        }
        /// A histogram family of the context block.
        func histogram(_ name: String, _ help: String, _ series: [([MetricLabel], Int)]) -> MetricFamily {
            MetricFamily(name: name, help: help, type: .histogram, samples: series.map {
                let read = LatencyHistogram.read(context, at: $0.1)
                return MetricSample(labels: $0.0, value: read.count, sum: read.sum, buckets: read.buckets)
            })
        }
        func kind(_ index: Int) -> MetricLabel { MetricLabel("kind", layout.kinds[index]) }

        var families: [MetricFamily] = []
        families.append(perTenant(
            "libmfa_sign_in_starts_total",
            "First-factor sign-ins reported to libmfa, by outcome (second_factor_required: a resolver was returned).",
            SignInStartOutcome.allCases.map { ([MetricLabel("outcome", $0.label)], layout.starts + $0.rawValue) }))
        families.append(perTenant(
            "libmfa_sign_ins_total",
            "Second-factor sign-in attempts (resolves), by factor kind and outcome.",
            kinds.flatMap { k in outcomes.map { ([kind(k), MetricLabel("outcome", $0.label)], layout.signIn(k, $0)) } }))
        families.append(histogram(
            "libmfa_sign_in_duration_seconds",
            "Time libmfa took for a second-factor sign-in attempt, store included, by factor kind (every outcome).",
            kinds.map { ([kind($0)], layout.signInDuration + $0 * LatencyHistogram.stride) }))
        families.append(perTenant(
            "libmfa_backoff_entries_total",
            "Failed second-factor attempts that put a factor or its user into backoff, or lengthened it, by factor kind.",
            kinds.map { ([kind($0)], layout.backoffs + $0) }))
        families.append(perTenant(
            "libmfa_enrollments_total",
            "Second-factor enrollments finished (success) or refused, by factor kind and outcome.",
            kinds.flatMap { k in
                outcomes.map { ([kind(k), MetricLabel("outcome", $0.label)], layout.enrollment(k, $0)) }
            }))
        families.append(perTenant(
            "libmfa_unenrollments_total",
            "Second factors removed, by factor kind and by whom (the user, or an operator's administrative call).",
            kinds.flatMap { k in
                UnenrollSource.allCases.map {
                    ([kind(k), MetricLabel("source", $0.label)], layout.unenrollment(k, $0))
                }
            }))
        families.append(perTenant(
            "libmfa_code_sends_total",
            "Requests for a one-time code by SMS or another channel, by channel, purpose and outcome "
                + "(sent: handed to the gateway).",
            layout.channels.indices.flatMap { c in
                SendPurpose.allCases.flatMap { p in
                    SendOutcome.allCases.map {
                        ([MetricLabel("channel", layout.channels[c]), MetricLabel("purpose", p.label),
                          MetricLabel("outcome", $0.label)], layout.send(c, p, $0))
                    }
                }
            }))
        let operations = StoreOperation.allCases
        families.append(histogram(
            "libmfa_store_operation_duration_seconds",
            "Time of a store operation (a transaction, or reads or writes outside one), retries and lock waits "
                + "included, by operation.",
            operations.map { ([MetricLabel("operation", $0.label)],
                              layout.storeDuration + $0.rawValue * LatencyHistogram.stride) }))
        families.append(perContext(
            "libmfa_store_retries_total",
            "Store transactions run again after a conflict, and SQLite statements that waited for a lock, by reason.",
            StoreRetryReason.allCases.map { ([MetricLabel("reason", $0.label)], layout.retries + $0.rawValue) }))
        families.append(perContext(
            "libmfa_store_errors_total",
            "Store operations that failed (STORAGE_ERROR: the server unreachable, a deadline passed, a retry "
                + "limit reached), by operation.",
            operations.map { ([MetricLabel("operation", $0.label)], layout.storeErrors + $0.rawValue) }))
        return MetricsSnapshot(families: families)
    }

    /// The metrics now in Prometheus' text exposition format (version
    /// 0.0.4; serve it as `text/plain; version=0.0.4; charset=utf-8`):
    /// `# HELP` and `# TYPE` lines, then the series; empty when metrics are off.
    public func prometheusText() -> String {
        snapshot().prometheusText
    }
}
