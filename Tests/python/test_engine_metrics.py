"""The metrics from Python: Context.metrics() and Context.metrics_text().

A journey's counts read back through the snapshot and through Prometheus'
text format (read by a strict parser of the format and linted by
Prometheus' own ``promtool check metrics``), tenant labels and their bound,
metrics off, and every bad argument.
"""

import math
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import prometheus_text  # noqa: E402  (Tests/prometheus_text.py)


def journey(kit):
    """An enrollment, two successes, three wrong codes and a replay."""
    user = kit.user()
    info, totp = kit.enroll(user)
    for _ in range(2):
        kit.clock.advance(30)
        kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    for _ in range(3):
        with pytest.raises(kit.libmfa.InvalidVerificationCodeError):
            kit.resolve(kit.resolver(user), info.uid, "000000" if kit.code(totp) != "000000" else "000001")
    with pytest.raises(kit.libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    return user, info


def test_journey_in_the_snapshot(kit):
    journey(kit)
    metrics = kit.ctx.metrics()
    assert isinstance(metrics, kit.libmfa.Metrics)
    assert metrics.value("libmfa_sign_ins_total", kind="totp", outcome="success") == 2
    assert metrics.value("libmfa_sign_ins_total", kind="totp", outcome="wrong_code") == 3
    assert metrics.value("libmfa_sign_ins_total", kind="totp", outcome="replay") == 1
    assert metrics.value("libmfa_sign_ins_total", kind="phone", outcome="success") == 0
    assert metrics.value("libmfa_enrollments_total", kind="totp", outcome="success") == 1
    assert metrics.value("libmfa_sign_in_starts_total", outcome="second_factor_required") == 6
    assert metrics.value("libmfa_sign_ins_total", kind="nope", outcome="success") is None
    histogram = metrics.family("libmfa_sign_in_duration_seconds")
    assert histogram is not None and histogram.type == "histogram"
    series = [s for s in histogram.samples if s.labels == {"kind": "totp"}][0]
    assert series.value == 6 and series.sum > 0
    bounds = [bound for bound, _ in series.buckets]
    counts = [count for _, count in series.buckets]
    assert bounds == sorted(bounds) and math.isinf(bounds[-1]) and counts == sorted(counts) and counts[-1] == 6
    assert {family.type for family in metrics.families} == {"counter", "histogram"}
    assert all(family.name.startswith("libmfa_") and family.help for family in metrics.families)


def test_journey_in_prometheus_text(kit):
    journey(kit)
    text = kit.ctx.metrics_text()
    families = prometheus_text.parse(text)
    snapshot = kit.ctx.metrics()
    assert set(families) == {family.name for family in snapshot.families}
    for family in snapshot.families:
        parsed = families[family.name]
        assert parsed.type == family.type and parsed.help == family.help
        assert family.name.endswith("_total" if family.type == "counter" else "_seconds")
        for sample in family.samples:
            if family.type == "counter":
                assert prometheus_text.value(families, family.name, **sample.labels) == sample.value
                continue
            assert prometheus_text.value(families, family.name + "_count", **sample.labels) == sample.value
            assert prometheus_text.value(families, family.name + "_sum", **sample.labels) == pytest.approx(sample.sum)
            for bound, count in sample.buckets:
                le = "+Inf" if math.isinf(bound) else str(int(bound)) if bound == int(bound) else repr(bound)
                assert prometheus_text.value(families, family.name + "_bucket", le=le, **sample.labels) == count
    assert prometheus_text.value(families, "libmfa_sign_ins_total", kind="totp", outcome="replay") == 1
    linted = prometheus_text.promtool(text)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_tenant_labels_escaped_and_bounded(make_kit):
    kit = make_kit(metrics_tenants=2)
    import libmfa

    odd = 'acme "north" \\ south'
    for tenant, times in ((None, 1), (odd, 2), ("globex", 1), ("initech", 3)):
        for _ in range(times):
            kit.ctx.sign_in(kit.user("u", tenant=tenant))
    metrics = kit.ctx.metrics()
    assert metrics.value("libmfa_sign_in_starts_total", outcome="signed_in", tenant="") == 1
    assert metrics.value("libmfa_sign_in_starts_total", outcome="signed_in", tenant=odd) == 2
    assert metrics.value("libmfa_sign_in_starts_total", outcome="signed_in", tenant="globex") == 1
    assert metrics.value("libmfa_sign_in_starts_total", outcome="signed_in", tenant=libmfa.OTHER_TENANTS) == 3
    assert metrics.value("libmfa_sign_in_starts_total", outcome="signed_in", tenant="initech") is None
    text = kit.ctx.metrics_text()
    assert 'tenant="acme \\"north\\" \\\\ south"' in text
    families = prometheus_text.parse(text)
    assert prometheus_text.value(families, "libmfa_sign_in_starts_total", outcome="signed_in", tenant=odd) == 2
    assert prometheus_text.promtool(text).returncode == 0


def test_metrics_off(make_kit):
    kit = make_kit(metrics=False)
    kit.ctx.sign_in(kit.user())
    assert kit.ctx.metrics().families == ()
    assert kit.ctx.metrics_text() == ""


@pytest.mark.parametrize("options, error", [
    ({"metrics": "yes"}, TypeError),
    ({"metrics": 1}, TypeError),
    ({"metrics": None}, TypeError),
    ({"metrics_tenants": "3"}, TypeError),
    ({"metrics_tenants": True}, TypeError),
    ({"metrics_tenants": 2.0}, TypeError),
    ({"metrics_tenants": 0}, "InvalidArgumentError"),
    ({"metrics_tenants": -1}, "InvalidArgumentError"),
    ({"metrics_tenants": 10_001}, "InvalidArgumentError"),
    ({"metrics_tenants": 2 ** 64}, "InvalidArgumentError"),
    ({"metrics": False, "metrics_tenants": 5}, "InvalidArgumentError"),
])
def test_bad_options(options, error):
    import libmfa

    expected = getattr(libmfa, error) if isinstance(error, str) else error
    with pytest.raises(expected):
        libmfa.Context(master_key=bytes(32), **options)


def test_closed_context(make_kit):
    import libmfa

    kit = make_kit()
    kit.ctx.close()
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.metrics()
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.metrics_text()


def test_bound_constants():
    import libmfa

    assert libmfa.METRICS_TENANTS_MAX == 10_000 and libmfa.METRICS_TENANTS_DEFAULT == 100
    assert libmfa.PROMETHEUS_CONTENT_TYPE == "text/plain; version=0.0.4; charset=utf-8"
