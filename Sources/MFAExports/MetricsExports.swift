import CMFATypes
import Glibc
import MFA

/// The C layout of one series, its labels and buckets placed in `arena`.
private func cSample(_ sample: MetricSample, _ arena: CArena) -> mfa_metric_sample {
    mfa_metric_sample(label_count: sample.labels.count,
                      labels: arena.array(sample.labels) {
                          mfa_metric_label(name: arena.string($0.name), value: arena.string($0.value))
                      },
                      value: sample.value, sum: sample.sum, bucket_count: sample.buckets.count,
                      buckets: sample.buckets.isEmpty ? nil : arena.array(sample.buckets) {
                          mfa_metric_bucket(upper_bound: $0.upperBound, count: $0.count)
                      })
}

/// Reads the context's metrics now: counters and latency histograms of
/// its sign-ins, enrollments, code sends, backoffs and store operations,
/// counted since mfa_open() (see "Metrics" in mfa_types.h). Each value is
/// read atomically, not all at one instant. On MFA_OK, `*out` holds every
/// family (none when the context was opened with MFA_METRICS_OFF), in one
/// allocation: free it with mfa_metrics_free(). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (NULL `ctx` or `out`) or MFA_ERR_OUT_OF_MEMORY.
/// Thread-safe, and never waits for the store.
@c(mfa_metrics_snapshot)
public func mfa_metrics_snapshot(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_metrics>?>?,
                                 _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let families = context.metrics.snapshot().families
        out.pointee = try CBlock.make { arena in
            mfa_metrics(family_count: families.count, families: arena.array(families) { family in
                mfa_metric_family(name: arena.string(family.name), help: arena.string(family.help),
                                  type: family.type == .counter ? MFA_METRIC_COUNTER : MFA_METRIC_HISTOGRAM,
                                  sample_count: family.samples.count,
                                  samples: arena.array(family.samples) { cSample($0, arena) })
            })
        }
    }
}

/// Frees what mfa_metrics_snapshot() returned. NULL is a no-op.
@c(mfa_metrics_free)
public func mfa_metrics_free(_ metrics: UnsafeMutablePointer<mfa_metrics>?) {
    free(metrics)
}

/// Writes the context's metrics in Prometheus' text exposition format
/// (version 0.0.4): for each family a "# HELP" and a "# TYPE" line, then
/// its series (a histogram's as _bucket{le="..."}, _sum and _count lines),
/// label values escaped. Serve it from a /metrics endpoint with the
/// content type "text/plain; version=0.0.4; charset=utf-8". On MFA_OK,
/// `*out` is the text (empty when the context was opened with
/// MFA_METRICS_OFF): free it with mfa_free(). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (NULL `ctx` or `out`) or MFA_ERR_OUT_OF_MEMORY.
/// Thread-safe, and never waits for the store.
@c(mfa_metrics_prometheus)
public func mfa_metrics_prometheus(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                   _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                   _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        out.pointee = try CResults.cString(context.metrics.prometheusText())
    }
}
