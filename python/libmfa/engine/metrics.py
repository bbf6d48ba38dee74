"""A context's metrics: :meth:`Context.metrics` and :meth:`Context.metrics_text`.

A context keeps counters and latency histograms of its sign-ins,
enrollments, code sends, backoffs and store operations, counted with atomic
additions in libmfa from the context's opening (``mfa_metrics_snapshot``).
:meth:`Context.metrics_text` writes them in Prometheus' text exposition
format for a ``/metrics`` endpoint, in one call (``mfa_metrics_prometheus``);
serve it as :data:`PROMETHEUS_CONTENT_TYPE`. Which metrics there are, their
labels and what to alert on is in the documentation's metrics guide.

Opening a context with ``metrics=False`` keeps none; ``metrics_tenants=N``
labels the counters by tenant, for at most N tenants (the events of later
tenants share ``tenant="(other)"``).
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi
from .._memory import required
from .._record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Optional, Tuple

#: The content type of :meth:`Context.metrics_text`, for the ``/metrics`` response.
PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: The tenant label of the events of tenants past the context's ``metrics_tenants``.
OTHER_TENANTS = "(other)"


class MetricSample(Record):
    """One series of a metric family.

    Attributes:
        labels: the labels, a dict of name to value (``{"kind": "totp", "outcome": "success"}``).
        value: a counter's value; a histogram's count of observations.
        sum: a histogram's sum of observations, in seconds (0.0 for a counter).
        buckets: a histogram's buckets, cumulative, as ``(upper_bound, count)``
            pairs in seconds, the last bound ``float("inf")``; empty for a counter.
    """

    __slots__ = ("labels", "value", "sum", "buckets")

    labels: Dict[str, str]
    value: int
    sum: float
    buckets: Tuple[Tuple[float, int], ...]

    def __init__(self, labels: Dict[str, str], value: int, sum: float = 0.0,
                 buckets: Tuple[Tuple[float, int], ...] = ()) -> None:
        self._set(labels=dict(labels), value=value, sum=sum, buckets=tuple(buckets))

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.labels.items())), self.value, self.sum, self.buckets))


class MetricFamily(Record):
    """One metric: its name, help text, type and series.

    Attributes:
        name: ``libmfa_...`` (a counter's ends in ``_total``, a duration's in ``_seconds``).
        help: what it counts, in one sentence.
        type: ``"counter"`` or ``"histogram"``.
        samples: its series, a tuple of :class:`MetricSample`.
    """

    __slots__ = ("name", "help", "type", "samples")

    name: str
    help: str
    type: str
    samples: Tuple[MetricSample, ...]

    def __init__(self, name: str, help: str, type: str, samples: Tuple[MetricSample, ...]) -> None:
        self._set(name=name, help=help, type=type, samples=tuple(samples))


class Metrics(Record):
    """A context's metrics at one moment (:meth:`Context.metrics`).

    Each value was read atomically, but not all of them at one instant.

    Attributes:
        families: the metric families in a fixed order (none when the context keeps no metrics).
    """

    __slots__ = ("families",)

    families: Tuple[MetricFamily, ...]

    def __init__(self, families: Tuple[MetricFamily, ...]) -> None:
        self._set(families=tuple(families))

    def family(self, name: str) -> Optional[MetricFamily]:
        """The family called ``name``, or None."""
        for family in self.families:
            if family.name == name:
                return family
        return None

    def value(self, name: str, **labels: str) -> Optional[int]:
        """The value of the series of ``name`` whose labels are exactly ``labels``, or None.

        For example ``metrics.value("libmfa_sign_ins_total", kind="totp",
        outcome="success")``; a histogram's value is its count.
        """
        family = self.family(name)
        if family is not None:
            for sample in family.samples:
                if sample.labels == labels:
                    return sample.value
        return None


def _family_type(value: int) -> str:
    return "counter" if value == _ffi.MFA_METRIC_COUNTER else "histogram"


def _sample(sample: _ffi.mfa_metric_sample) -> MetricSample:
    labels = {required(sample.labels[i].name): required(sample.labels[i].value) for i in range(sample.label_count)}
    buckets = tuple((float(sample.buckets[i].upper_bound), int(sample.buckets[i].count))
                    for i in range(sample.bucket_count))
    return MetricSample(labels, int(sample.value), float(sample.sum), buckets)


def from_c(metrics: _ffi.mfa_metrics) -> Metrics:
    """Copies an ``mfa_metrics`` into Python objects (the C struct is freed by the caller)."""
    families = []
    for index in range(metrics.family_count):
        family = metrics.families[index]
        families.append(MetricFamily(required(family.name), required(family.help), _family_type(family.type),
                                     tuple(_sample(family.samples[i]) for i in range(family.sample_count))))
    return Metrics(tuple(families))


def options(metrics: object, tenants: object) -> Tuple[int, int]:
    """``mfa_options.metrics`` and ``metrics_tenants`` for a context's ``metrics`` and ``metrics_tenants``."""
    if not isinstance(metrics, bool):
        raise TypeError("metrics must be True or False, not %s" % type(metrics).__name__)
    if tenants is None:
        mode = _ffi.MFA_METRICS_ON if metrics else _ffi.MFA_METRICS_OFF
        return mode, _ffi.MFA_METRICS_TENANTS_DEFAULT
    if isinstance(tenants, bool) or not isinstance(tenants, int):
        raise TypeError("metrics_tenants must be an int or None, not %s" % type(tenants).__name__)
    if not metrics:
        raise _args.invalid("metrics_tenants needs metrics=True")
    if not 1 <= tenants <= _ffi.MFA_METRICS_TENANTS_MAX:
        # The library says so too (INVALID_ARGUMENT); a negative or huge int does not fit uint32_t.
        tenants = 0
    return _ffi.MFA_METRICS_BY_TENANT, tenants


def snapshot_pointer() -> ctypes._Pointer[_ffi.mfa_metrics]:
    """An out-parameter for ``mfa_metrics_snapshot``."""
    return ctypes.POINTER(_ffi.mfa_metrics)()
