"""What the FreeRADIUS tests share: a run's scratch folder, master key and
store; users and their factors, enrolled through libmfa's Python binding as an
operator's tooling would; a real FreeRADIUS (freeradius -f, or -X under
valgrind) on loopback with its own configuration folder made from the shipped
mods-available/mfa; Debian's radclient and radtest as the clients; codes from
oathtool and the SMS outbox; a private PostgreSQL server.

Everything a run starts (servers, PostgreSQL) is stopped at its end, and its
scratch folder removed.
"""

import base64
import os
import pathlib
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("MFA_RADIUS_BUILD", REPO / "build"))
MODULE = BUILD / "radius" / "rlm_mfa.so"
LIBRARY = BUILD / "libmfa.so"
SHIPPED = REPO / "radius" / "raddb" / "mods-available" / "mfa"
PG_SCRIPT = REPO / "scripts" / "pg.sh"
#: FreeRADIUS's own leaks, which valgrind reports whatever the modules do.
SUPPRESSIONS = pathlib.Path(__file__).resolve().parent / "freeradius.supp"
PORT_BASE = int(os.environ.get("MFA_PG_PORT_BASE", "25432"))
#: The run's own ports: a PostgreSQL server, and FreeRADIUS listeners from + 41 to + 79.
PG_PORT = PORT_BASE + 40
RADIUS_PORT_FIRST = PORT_BASE + 41
RADIUS_PORT_LAST = PORT_BASE + 79

os.environ.setdefault("LIBMFA_LIBRARY", str(LIBRARY))
sys.path.insert(0, str(REPO / "python"))
import libmfa  # noqa: E402
from libmfa.outbox import read_outbox  # noqa: E402

SECRET = "testing123"
PASSWORD = "correct horse"
PERIOD = 30
KEY_ID = "radius"


def now_step():
    """The current TOTP time step."""
    return int(time.time()) // PERIOD


def totp(secret, step, digits=6):
    """The code an authenticator app shows at `step` for a base32 secret, computed by oathtool."""
    out = subprocess.run(["oathtool", "--totp", "-d", str(digits), "-b", secret, "-N", f"@{step * PERIOD}"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def other_code(code):
    """A code of the same length that is not `code`."""
    n = len(code)
    return f"{(int(code) + 5 * 10 ** (n - 1) + 1) % 10 ** n:0{n}d}"


class App:
    """A user's authenticator app: its base32 secret, and the last time step libmfa accepted."""

    def __init__(self, secret, digits=6):
        self.secret = secret
        self.digits = digits
        self.step = now_step() - 1

    def next_code(self):
        """A code of a step later than any used so far (and within the window)."""
        self.step = max(self.step + 1, now_step())
        return totp(self.secret, self.step, self.digits)


class Reply:
    """What radclient printed for one packet: its code and attributes."""

    def __init__(self, code, attributes):
        self.code = code
        self.attributes = attributes

    def __getitem__(self, name):
        return self.attributes.get(name)

    def __repr__(self):
        return f"<{self.code} {self.attributes}>"


def parse_replies(text):
    """Each "Received Access-..." of radclient -x, with its attributes, in order."""
    replies = []
    current = None
    for line in text.splitlines():
        match = re.match(r"\s*Received (Access-\w+) Id (\d+)", line)
        if match:
            current = Reply(match.group(1), {"Id": int(match.group(2))})
            replies.append(current)
            continue
        if line.startswith(("Sent ", "(")) or not line.strip():
            current = None if line.startswith("Sent ") else current
            continue
        match = re.match(r"\s+([\w-]+) = (.*)$", line)
        if current is not None and match:
            value = match.group(2)
            if value.startswith('"') and value.endswith('"'):
                value = value[1:-1]
            current.attributes[match.group(1)] = value
    return replies


def pg_signal(name):
    """Sends SIGSTOP or SIGCONT (`name`) to the private PostgreSQL server and its backends."""
    data = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"libmfa-pg-{PG_PORT}" / "data"
    master = int((data / "postmaster.pid").read_text().split()[0])
    pids = [master]
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == master:
            pids.append(int(stat.parent.name))
    for pid in pids:
        try:
            os.kill(pid, getattr(signal, "SIG" + name))
        except ProcessLookupError:
            pass


class Server:
    """A FreeRADIUS of the run's own: a configuration folder, one or two listeners, its log."""

    def __init__(self, run, name, store, ports, one_field_port=None, module_options=None, one_field_options=None,
                 valgrind=False, threads=True):
        self.run = run
        self.name = name
        self.port = ports
        self.one_field_port = one_field_port
        self.dir = run.dir / f"raddb-{name}"
        self.log = run.dir / f"{name}.log"
        self.valgrind_log = run.dir / f"{name}.valgrind"
        self.process = None
        self.valgrind = valgrind
        self.threads = threads
        self.write_config(store, module_options or {}, one_field_options or {})

    def module_section(self, instance, options):
        """The shipped mods-available/mfa, its values replaced by `options` (name: value or None to drop)."""
        text = SHIPPED.read_text()
        if instance != "mfa":
            text = re.sub(r"^mfa \{", f"mfa {instance} {{", text, flags=re.M)
        for name, value in options.items():
            pattern = re.compile(rf"^#?\t{name} = .*$", re.M)
            assert pattern.search(text), f"{name} is not in the shipped mods-available/mfa"
            line = "" if value is None else f"\t{name} = {value}"
            text = pattern.sub(lambda _: line, text, count=1)
        return text

    def write_config(self, store, options, one_field_options):
        os.makedirs(self.dir / "mods-enabled", exist_ok=True)
        (self.dir / "dictionary").write_text("")
        (self.dir / "users").write_text(f'DEFAULT Cleartext-Password := "{PASSWORD}"\n')
        common = {"store": f'"{store}"', "key_file": f'"{self.run.key_file}"',
                  "sms_outbox": f'"{self.run.outbox}"', "challenge_timeout": "60"}
        common.update(options)
        (self.dir / "mods-enabled" / "mfa").write_text(self.module_section("mfa", common))
        one = dict(common, one_field="yes", **one_field_options)
        (self.dir / "mods-enabled" / "mfa_one_field").write_text(self.module_section("mfa_one_field", one))
        servers = [self.server("challenge", self.port, "mfa", True)]
        if self.one_field_port:
            servers.append(self.server("one_field", self.one_field_port, "mfa_one_field", False))
        libdir = f"{MODULE.parent}:/usr/lib/freeradius"
        (self.dir / "radiusd.conf").write_text(f"""
prefix = /usr
confdir = {self.dir}
raddbdir = {self.dir}
run_dir = {self.dir}
logdir = {self.dir}
libdir = {libdir}
pidfile = {self.dir}/radiusd.pid
max_request_time = 30
cleanup_delay = 5
max_requests = 65536
hostname_lookups = no
log {{
	destination = files
	file = {self.log}
	auth = yes
}}
security {{
	allow_core_dumps = no
	max_attributes = 200
	reject_delay = 0
	status_server = yes
}}
client localhost {{
	ipaddr = 127.0.0.1
	secret = {SECRET}
	require_message_authenticator = yes
}}
thread pool {{
	start_servers = 8
	max_servers = 32
	min_spare_servers = 4
	max_spare_servers = 16
	max_queue_size = 65536
}}
modules {{
	pap {{
	}}
	files {{
		filename = ${{confdir}}/users
	}}
	$INCLUDE mods-enabled/
}}
{''.join(servers)}
""")

    @staticmethod
    def server(name, port, instance, challenge):
        mfa_type = f"""
		Auth-Type {instance} {{
			{instance}
		}}""" if challenge else ""
        return f"""
server {name} {{
	listen {{
		type = auth
		ipaddr = 127.0.0.1
		port = {port}
	}}
	authorize {{
		{instance}
		files
		pap
	}}
	authenticate {{
		Auth-Type PAP {{
			pap {{
				ok = 1
			}}
			{instance}
		}}{mfa_type}
	}}
}}
"""

    def start(self):
        args = ["freeradius", "-d", str(self.dir), "-n", "radiusd"]
        if self.valgrind:
            args = ["valgrind", "-q", f"--log-file={self.valgrind_log}", f"--suppressions={SUPPRESSIONS}",
                    "--leak-check=full",
                    "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
                    "--keep-debuginfo=yes", "--num-callers=30"] + args + ["-X"]
        else:
            args += ["-f"] if self.threads else ["-f", "-s"]
        out = open(self.run.dir / f"{self.name}.stdout", "w")
        ready = self.log_text().count("Ready to process requests")
        self.process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        self.run.servers.append(self)
        deadline = time.monotonic() + (120 if self.valgrind else 20)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"freeradius {self.name} exited:\n{self.output()}")
            if self.log_text().count("Ready to process requests") > ready and self.status_ok():
                return self
            time.sleep(0.02)
        raise RuntimeError(f"freeradius {self.name} did not answer:\n{self.output()}")

    def status_ok(self):
        result = subprocess.run(["radclient", "-r", "1", "-t", "1", f"127.0.0.1:{self.port}", "status", SECRET],
                                input='Message-Authenticator = 0x00\n', capture_output=True, text=True)
        return result.returncode == 0

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60 if self.valgrind else 10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def output(self):
        parts = []
        for path in (self.run.dir / f"{self.name}.stdout", self.log):
            if path.exists():
                parts.append(path.read_text(errors="replace"))
        return "\n".join(parts)

    def log_text(self):
        """What the server logged (radius.log; -X writes it to standard output instead)."""
        return self.output()

    # --- clients ------------------------------------------------------------------------

    def radclient(self, packets, port=None, secret=SECRET, parallel=1, timeout=5, retries=1):
        """Sends `packets` (lists of attribute lines) with radclient -x; returns (replies, output, seconds)."""
        text = "\n\n".join("\n".join(list(lines) + ["Message-Authenticator = 0x00"]) for lines in packets) + "\n"
        args = ["radclient", "-x", "-r", str(retries), "-t", str(timeout), "-p", str(parallel),
                f"127.0.0.1:{port or self.port}", "auth", secret]
        start = time.monotonic()
        result = subprocess.run(args, input=text, capture_output=True, text=True, timeout=120)
        seconds = time.monotonic() - start
        out = result.stdout + result.stderr
        return parse_replies(out), out, seconds

    def request(self, user, password, *extra, port=None, secret=SECRET, timeout=5):
        """One Access-Request; the reply (None if none came) and radclient's output."""
        lines = [f'User-Name = "{user}"', f'User-Password = "{password}"', *extra]
        replies, out, _ = self.radclient([lines], port=port, secret=secret, timeout=timeout)
        return (replies[0] if replies else None), out

    def answer(self, user, state, code, *extra):
        """The reply to a challenge: the code and the State."""
        return self.request(user, code, f"State = {state}", *extra)

    def radtest(self, user, password, port=None):
        """radtest USER PASSWORD 127.0.0.1:PORT 0 SECRET (PAP, with Message-Authenticator); its output."""
        result = subprocess.run(["radtest", "-x", user, password, f"127.0.0.1:{port or self.port}", "0", SECRET],
                                capture_output=True, text=True, timeout=30)
        return result.stdout + result.stderr


class Run:
    """One test run: its id, scratch folder, key, store, outbox and everything to stop at the end."""

    def __init__(self):
        if os.geteuid() != 0:
            raise RuntimeError("the FreeRADIUS tests run as root (the key file's rules are pam_mfa's)")
        if not MODULE.exists():
            raise RuntimeError(f"{MODULE} is not built (scripts/setup.sh, then cmake --build build)")
        for program in ("freeradius", "radclient", "radtest", "oathtool"):
            if not shutil.which(program):
                raise RuntimeError(f"{program} is not installed (scripts/setup.sh)")
        self.id = secrets.token_hex(3)
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix=f"libmfa-radius-{self.id}-"))
        os.chmod(self.dir, 0o755)
        self.servers = []
        self.pg_started = False
        self.counter = 0
        self.ports = iter(range(RADIUS_PORT_FIRST, RADIUS_PORT_LAST + 1))
        self.key = secrets.token_bytes(32)
        self.key_file = self.dir / "mfa.key"
        self.key_file.write_text(self.key.hex() + "\n")
        os.chmod(self.key_file, 0o600)
        self.outbox = self.dir / "outbox.jsonl"
        self.store = str(self.dir / "mfa.sqlite")
        self.contexts = {}

    def name(self, what="user"):
        self.counter += 1
        return f"{what}{self.id}{self.counter}"

    def port(self):
        return next(self.ports)

    def context(self, store=None):
        """The operator's libmfa context on a store (the run's SQLite store by default)."""
        store = store or self.store
        if store not in self.contexts:
            self.contexts[store] = libmfa.Context(store, master_key=self.key, key_id=KEY_ID,
                                                  sms_outbox=str(self.outbox),
                                                  app_verifier=lambda credential, action: True)
        return self.contexts[store]

    def configure(self, config, store=None):
        self.context(store).set_config(config)

    def user(self, uid, store=None):
        return libmfa.User(uid, email=f"{uid}@example.com", email_verified=True, auth_time=int(time.time()))

    def enroll_totp(self, uid, store=None, digits=6, name=None):
        """An authenticator app imported for `uid` (as an operator moving users in would); its App."""
        secret = secrets.token_bytes(20)
        params = libmfa.TOTP(secret, digits=digits)
        self.context(store).import_totp(self.user(uid), params, display_name=name)
        return App(base64.b32encode(secret).decode().rstrip("="), digits)

    def enroll_phone(self, uid, number, store=None):
        """A phone factor for `uid`, enrolled with the code from the outbox."""
        ctx = self.context(store)
        mf = ctx.multi_factor(self.user(uid))
        verification_id = libmfa.PhoneAuthProvider(ctx).verify_phone_number(number, "app", session=mf.session())
        code = self.outbox_codes(number)[-1]
        credential = libmfa.PhoneAuthProvider.credential(verification_id, code)
        return mf.enroll(libmfa.PhoneMultiFactorGenerator.assertion(credential))

    def recovery_codes(self, uid, store=None):
        """A new recovery-code set for `uid`; the codes."""
        ctx = self.context(store)
        mf = ctx.multi_factor(self.user(uid))
        return list(libmfa.RecoveryCodesMultiFactorGenerator.generate_codes(mf.session()).codes)

    def outbox_codes(self, number):
        """The codes sent to `number` so far, oldest first."""
        return [m["code"] for m in read_outbox(self.outbox) if m["to"] == number]

    def server(self, name, store=None, one_field=False, checked_only=False, **kwargs):
        """A new FreeRADIUS of this run (not started). One `checked_only` (freeradius -C) takes no port of its own."""
        if checked_only:
            return Server(self, name, store or self.store, RADIUS_PORT_LAST, None, **kwargs)
        port = self.port()
        return Server(self, name, store or self.store, port, self.port() if one_field else None, **kwargs)

    # --- the private PostgreSQL server ---------------------------------------------------

    def pg_start(self):
        out = subprocess.run([str(PG_SCRIPT), "start", str(PG_PORT)], check=True, capture_output=True, text=True)
        self.pg_started = True
        return out.stdout.strip().splitlines()[-1]

    def pg_halt(self):
        """Stops the server, keeping its data (pg_start brings it back)."""
        subprocess.run([str(PG_SCRIPT), "halt", str(PG_PORT)], check=True, capture_output=True)

    def pg_stop(self):
        subprocess.run([str(PG_SCRIPT), "stop", str(PG_PORT)], capture_output=True)
        self.pg_started = False

    def close(self):
        for server in self.servers:
            server.stop()
        for ctx in self.contexts.values():
            ctx.close()
        if self.pg_started:
            self.pg_stop()
        shutil.rmtree(self.dir, ignore_errors=True)
