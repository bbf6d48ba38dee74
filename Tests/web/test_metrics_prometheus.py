"""Prometheus scraping the example web application's /metrics, its values queried back.

The application runs under the README's command (scripts/web.sh) on SQLite,
with a metrics token (``MFA_WEB_METRICS_TOKEN``). Debian's ``prometheus``
runs on a free loopback port picked at random (another if it is taken by
the time it binds) with a configuration and a data folder of its own: it
scrapes ``/metrics`` every second with the token (job ``libmfa``) and
without it (job ``no_token``, refused), and loads the alert rules the
metrics guide documents (examples/prometheus/libmfa-alerts.yml).

A scripted journey over HTTP, as a browser would make it (forms, CSRF
tokens, cookies; codes from pyotp): two people sign up and enroll an
authenticator app; one signs in three times, then replays her last code;
the other types four wrong codes. Then, once Prometheus has scraped after
the journey, every count
is read back through its HTTP API (``/api/v1/query``): sign-ins by outcome,
enrollments, first-factor reports, the sign-in histogram's buckets, count
and quantile, the store's histogram; the job without the token is down
with 401; and the failure-ratio alert is pending (its ``for`` not yet run out).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import pathlib
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pyotp
import pytest

from conftest import REPO, Server

PASSWORD = "correct horse battery staple"
#: How many random ports Prometheus tries before the test gives up.
PORT_ATTEMPTS = 5
ALERTS = REPO / "examples" / "prometheus" / "libmfa-alerts.yml"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # noqa: ANN002, ANN003 - urllib's signature
        return None


class Visitor:
    """One browser's worth of cookies, filling the application's forms over HTTP."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect)

    def request(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str, str]:
        """(status, Location, body) of a GET, or of a POST of ``data``."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(self.base + path, body, timeout=30) as response:
                return response.status, response.headers.get("Location", ""), response.read().decode()
        except urllib.error.HTTPError as answer:
            return answer.code, answer.headers.get("Location", ""), answer.read().decode()

    def post(self, page: str, path: str, data: dict[str, str]) -> tuple[int, str, str]:
        """POST ``data`` to ``path`` with the CSRF token of ``page``, as its form would."""
        status, _, body = self.request(page)
        assert status == 200, (page, status)
        token = re.search(r'name="csrf_token" value="([^"]+)"', body).group(1)
        return self.request(path, dict(data, csrf_token=token))


def mail_link(instance: pathlib.Path, email: str) -> str:
    """The path of the verification link in the last mail to ``email`` (the development outbox)."""
    lines = (instance / "mail-outbox.jsonl").read_text().splitlines()
    mail = [json.loads(line) for line in lines if json.loads(line)["to"] == email][-1]
    return re.search(r"https?://[^/\s]+(/verify-email/\S+)", mail["body"]).group(1)


def sign_up_and_enroll(server: Server, email: str) -> tuple[Visitor, pyotp.TOTP, int]:
    """A new account with a verified email and a TOTP factor; the app and the enrollment's time."""
    person = Visitor(server.url)
    assert person.post("/signup", "/signup", {"email": email, "password": PASSWORD})[0] == 302
    assert person.request(mail_link(server.instance, email))[0] == 302
    assert person.post("/account", "/factors/totp/enroll/start", {})[0] == 302
    key = re.search(r'id="totp-key">([A-Z2-7 ]+)<', person.request("/factors/totp/enroll")[2]).group(1)
    app = pyotp.TOTP(key.replace(" ", ""))
    now = int(time.time())
    status, location, _ = person.post("/factors/totp/enroll", "/factors/totp/enroll",
                                      {"code": app.at(now), "display_name": "App"})
    assert (status, location) == (302, "/account")
    assert person.post("/account", "/signout", {})[0] == 302
    return person, app, now


def sign_in(person: Visitor, email: str, *codes: str) -> bool:
    """The password, then each code on the TOTP page in turn until one is accepted (then signs
    out); whether one was. A wrong code leaves the sign-in pending, on the same page."""
    status, location, _ = person.post("/signin", "/signin", {"email": email, "password": PASSWORD})
    assert (status, location) == (302, "/signin/second-factor")
    choose = person.request("/signin/second-factor")[2]
    page = re.search(r'href="(/factors/totp/sign-in/[^"]+)"', choose).group(1)
    for code in codes:
        status, location, _ = person.post(page, page, {"code": code})
        assert status == 302
        if not location.startswith("/factors/totp/sign-in/") and not location.startswith("/signin"):
            assert person.post("/account", "/signout", {})[0] == 302
            return True
    return False


def wrong_code(app: pyotp.TOTP) -> str:
    """A six-digit code that no time step near now has."""
    near = {app.at(time.time() + 30 * step) for step in range(-8, 9)}
    while True:
        code = "%06d" % secrets.randbelow(1_000_000)
        if code not in near:
            return code


class Prometheus:
    """Debian's prometheus on loopback, with a configuration and a data folder of its own."""

    def __init__(self, folder: pathlib.Path, target: str, token: str) -> None:
        folder.mkdir()
        (folder / "token").write_text(token)
        (folder / "prometheus.yml").write_text(f"""
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - {ALERTS}
scrape_configs:
  - job_name: libmfa
    authorization:
      type: Bearer
      credentials_file: {folder / "token"}
    static_configs:
      - targets: ["{target}"]
  - job_name: no_token
    static_configs:
      - targets: ["{target}"]
""")
        checked = subprocess.run(["promtool", "check", "config", str(folder / "prometheus.yml")],
                                 capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        self.log = folder / "prometheus.log"
        for _ in range(PORT_ATTEMPTS):
            self.url = "http://127.0.0.1:%d" % free_port()
            if self._start(folder):
                return
            if "address already in use" not in self.log.read_text(errors="replace"):
                break
        raise RuntimeError("prometheus did not start:\n" + self.log.read_text(errors="replace"))

    def _start(self, folder: pathlib.Path) -> bool:
        """Starts it on self.url's port; whether it became ready (stopped if not)."""
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                ["prometheus", "--config.file=%s" % (folder / "prometheus.yml"),
                 "--storage.tsdb.path=%s" % (folder / "data"),
                 "--web.listen-address=%s" % self.url.removeprefix("http://"),
                 "--log.level=warn"], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=5) as response:
                    if response.status == 200 and self.process.poll() is None:
                        return True
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                return False
            time.sleep(0.2)

    def api(self, path: str, **parameters: str) -> dict:
        """The ``data`` of an HTTP API answer."""
        query = "?" + urllib.parse.urlencode(parameters) if parameters else ""
        with urllib.request.urlopen(self.url + path + query, timeout=10) as response:
            answer = json.load(response)
        assert answer["status"] == "success", answer
        return answer["data"]

    def query(self, expression: str) -> list[tuple[dict[str, str], float]]:
        """An instant query's series: (labels, value)."""
        data = self.api("/api/v1/query", query=expression)
        assert data["resultType"] == "vector", data
        return [(item["metric"], float(item["value"][1])) for item in data["result"]]

    def value(self, expression: str) -> float:
        """The value of a query that must give exactly one series."""
        result = self.query(expression)
        assert len(result) == 1, (expression, result)
        return result[0][1]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def free_port() -> int:
    """A loopback port nothing listens on now, picked at random by the kernel."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition, seconds: float, what: str) -> None:  # noqa: ANN001 - a callable
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for " + what
        time.sleep(0.25)


@pytest.fixture(scope="module")
def scraped(tmp_path_factory):
    """The application and Prometheus scraping it (both stopped at the end)."""
    token = secrets.token_urlsafe(24)
    server = Server(tmp_path_factory.mktemp("web-metrics"), None, env={"MFA_WEB_METRICS_TOKEN": token})
    try:
        prometheus = Prometheus(tmp_path_factory.mktemp("prometheus") / "run", "127.0.0.1:%d" % server.port, token)
        try:
            yield server, prometheus, token
        finally:
            prometheus.stop()
    finally:
        server.stop()


def test_prometheus_reads_the_journey_back(scraped):
    server, prometheus, token = scraped
    wait_until(lambda: prometheus.query('up{job="libmfa"} == 1'), 30, "the first scrape")
    # The journey: ann signs in 3 times (the codes of the next time steps: her app's window
    # allows them), then replays her last code; cy types 4 wrong codes on one sign-in.
    ann, ann_app, enrolled = sign_up_and_enroll(server, "ann@example.com")
    cy, cy_app, _ = sign_up_and_enroll(server, "cy@example.com")
    for step in range(1, 4):
        assert sign_in(ann, "ann@example.com", ann_app.at(enrolled + 30 * step))
    assert not sign_in(ann, "ann@example.com", ann_app.at(enrolled + 90))
    assert not sign_in(cy, "cy@example.com", *(wrong_code(cy_app) for _ in range(4)))
    finished = time.time()
    wait_until(lambda: prometheus.value('timestamp(up{job="libmfa"})') > finished + 0.1, 30,
               "a scrape after the journey")

    def sign_ins(outcome: str) -> float:
        return prometheus.value('libmfa_sign_ins_total{kind="totp",outcome="%s"}' % outcome)

    assert sign_ins("success") == 3
    assert sign_ins("wrong_code") == 4
    assert sign_ins("replay") == 1
    assert sign_ins("backoff") == 0
    assert prometheus.value('sum(libmfa_sign_ins_total{kind="totp"})') == 8
    assert prometheus.value('libmfa_enrollments_total{kind="totp",outcome="success"}') == 2
    assert prometheus.value('libmfa_sign_in_starts_total{outcome="second_factor_required"}') == 5
    # The histogram: every attempt observed, the buckets cumulative, a quantile within them.
    assert prometheus.value('libmfa_sign_in_duration_seconds_count{kind="totp"}') == 8
    buckets = sorted((float(labels["le"]), value) for labels, value in
                     prometheus.query('libmfa_sign_in_duration_seconds_bucket{kind="totp"}'))
    assert len(buckets) >= 10 and buckets[-1] == (float("inf"), 8)
    assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:]))
    assert buckets[-2][1] == 8, "every attempt took less than the last finite bound (10 s)"
    assert 0 < prometheus.value('libmfa_sign_in_duration_seconds_sum{kind="totp"}') < 10
    p99 = prometheus.value('histogram_quantile(0.99, libmfa_sign_in_duration_seconds_bucket{kind="totp"})')
    assert 0 < p99 <= 10
    assert prometheus.value("sum(libmfa_store_operation_duration_seconds_count)") > 10
    assert prometheus.value("sum(libmfa_store_errors_total)") == 0
    # The job without the token is refused.
    assert prometheus.value('up{job="no_token"}') == 0
    targets = prometheus.api("/api/v1/targets")["activeTargets"]
    refused = [target for target in targets if target["labels"]["job"] == "no_token"]
    assert refused and "401" in refused[0]["lastError"], refused
    # The documented alerts are loaded and evaluate; 5 of 8 sign-ins failed: the ratio alert is pending.
    def rules() -> dict[str, dict]:
        groups = prometheus.api("/api/v1/rules")["groups"]
        return {rule["name"]: rule for group in groups for rule in group["rules"]}

    wait_until(lambda: rules()["LibmfaSignInFailureRatioHigh"]["state"] == "pending", 30,
               "the failure-ratio alert to be pending")
    loaded = rules()
    assert set(loaded) == set(re.findall(r"- alert: (\w+)", ALERTS.read_text()))
    assert all(rule["health"] == "ok" for rule in loaded.values()), loaded
    assert loaded["LibmfaStoreErrors"]["state"] == "inactive"
    assert loaded["LibmfaStoreLatencyHigh"]["state"] == "inactive"


def test_metrics_needs_the_token(scraped):
    server, _, token = scraped

    def fetch(headers: dict[str, str]) -> tuple[int, str, str]:
        request = urllib.request.Request(server.url + "/metrics", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers["Content-Type"], response.read().decode()
        except urllib.error.HTTPError as answer:
            return answer.code, answer.headers.get("WWW-Authenticate", ""), ""

    assert fetch({})[:2] == (401, 'Bearer realm="metrics"')
    assert fetch({"Authorization": "Bearer " + token[:-1]})[0] == 401
    assert fetch({"Authorization": "Basic " + token})[0] == 401
    status, content_type, body = fetch({"Authorization": "Bearer " + token})
    assert status == 200 and content_type == "text/plain; version=0.0.4; charset=utf-8"
    assert body.startswith("# HELP libmfa_") and "ann@example.com" not in body


def test_the_documented_configuration_and_alerts(tmp_path):
    """The guide's scrape configuration is valid, and each alert fires on what it describes
    (examples/prometheus/libmfa-alerts.test.yml: promtool's unit tests on made-up series)."""
    folder = REPO / "examples" / "prometheus"
    token = tmp_path / "libmfa-metrics.token"
    token.write_text("a-token-for-the-check\n")
    config = (folder / "prometheus.yml").read_text()
    assert "/etc/prometheus/libmfa-metrics.token" in config
    (tmp_path / "prometheus.yml").write_text(config.replace("/etc/prometheus/libmfa-metrics.token", str(token)))
    (tmp_path / "libmfa-alerts.yml").write_text(ALERTS.read_text())
    for command in (["promtool", "check", "config", str(tmp_path / "prometheus.yml")],
                    ["promtool", "test", "rules", str(folder / "libmfa-alerts.test.yml")]):
        checked = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stdout + checked.stderr
