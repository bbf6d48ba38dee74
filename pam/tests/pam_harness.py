"""What the PAM tests share: the built module and command, PAM service files,
local users, enrollment through mfa-enroll, codes from oathtool, pamtester,
a private PostgreSQL server, and a syslog catcher.

Everything a test makes here (files in /etc/pam.d, users, servers) carries
the run's own id and is removed when the run ends, whatever happened.
"""

import os
import pathlib
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("MFA_PAM_BUILD", REPO / "build"))
MODULE = BUILD / "pam" / "pam_mfa.so"
ENROLL = BUILD / "pam" / "mfa-enroll"
#: The operator's tool, for what mfa-enroll cannot make (a factor imported with 8-digit codes).
MFACTL = BUILD / "mfactl"
PG_SCRIPT = REPO / "scripts" / "pg.sh"
PORT_BASE = int(os.environ.get("MFA_PG_PORT_BASE", "25432"))
#: The test's own ports: a PostgreSQL server to stop and freeze, and four sshd.
PG_PORT = PORT_BASE + 10
SSHD_PORTS = (PORT_BASE + 11, PORT_BASE + 12, PORT_BASE + 15, PORT_BASE + 16)
#: How the test's sshd authenticate unless a test gives its own lines: keyboard-interactive only.
SSHD_AUTH_LINES = ("UsePAM yes", "KbdInteractiveAuthentication yes", "PasswordAuthentication no",
                   "AuthenticationMethods keyboard-interactive")

#: What pamtester prints for each PAM return code (pam_strerror).
SUCCESS = "successfully authenticated"
AUTH_ERR = "Authentication failure"
MAXTRIES = "Have exhausted maximum number of retries for service"
AUTHINFO_UNAVAIL = "Authentication service cannot retrieve authentication info"
SERVICE_ERR = "Error in service module"
USER_UNKNOWN = "User not known to the underlying authentication module"

PERIOD = 30


def now_step():
    """The current TOTP time step."""
    return int(time.time()) // PERIOD


def totp(secret, step, digits=6):
    """The code an authenticator app shows at `step` for a base32 secret, computed by oathtool."""
    out = subprocess.run(["oathtool", "--totp", "-d", str(digits), "-b", secret, "-N", f"@{step * PERIOD}"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def other_code(code):
    """A six-digit code that is not `code`."""
    return f"{(int(code) + 500_001) % 1_000_000:06d}"


class App:
    """A user's authenticator app: the secret, and the last time step libmfa accepted."""

    def __init__(self, secret, step, recovery_codes):
        self.secret = secret
        self.step = step
        self.recovery_codes = list(recovery_codes)

    def next_code(self):
        """A code of a step later than any accepted so far (and within the window)."""
        self.step = max(self.step + 1, now_step())
        return totp(self.secret, self.step)


class Run:
    """One test run: its id, scratch folder and everything to undo at the end."""

    def __init__(self):
        if os.geteuid() != 0:
            raise RuntimeError("the PAM tests run as root (they write /etc/pam.d and add users)")
        for path in (MODULE, ENROLL):
            if not path.exists():
                raise RuntimeError(f"{path} is not built (cmake --build build)")
        self.id = secrets.token_hex(3)
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix=f"libmfa-pam-{self.id}-"))
        self.services = []
        self.users = []
        self.processes = []
        self.pg_started = False
        self.counter = 0
        # The master key, as the README tells an operator to make it.
        self.key_file = self.dir / "pam.key"
        self.write_key(self.key_file)
        self.store = str(self.dir / "store" / "pam.sqlite")

    def name(self, what):
        self.counter += 1
        return f"{what}{self.id}{self.counter}"

    def write_key(self, path, mode=0o600, text=None):
        """A key file: 64 hex characters and a newline, root's, `mode`."""
        path = pathlib.Path(path)
        path.write_text(text if text is not None else secrets.token_hex(32) + "\n")
        os.chmod(path, mode)
        return path

    def service(self, module_lines, before=(), after=("auth required pam_permit.so",), name=None):
        """Writes /etc/pam.d/libmfa-test-<run>-<n>: `before`, the module's line(s), `after`."""
        name = name or f"libmfa-test-{self.id}-{len(self.services) + 1}"
        path = pathlib.Path("/etc/pam.d") / name
        lines = list(before) + [f"auth required {MODULE} {line}" for line in module_lines] + list(after)
        lines += ["account required pam_permit.so", "session required pam_permit.so"]
        path.write_text("\n".join(lines) + "\n")
        self.services.append(path)
        return name

    def store_words(self, store=None, key_file=None):
        return f"store={store or self.store} key_file={key_file or self.key_file}"

    def user(self, password=None, home=False):
        """A new local user (no login shell unless `home`), with `password` if given."""
        name = self.name("lmfa")
        args = ["useradd", "-s", "/bin/sh" if home else "/usr/sbin/nologin"]
        args += ["-m"] if home else ["-M"]
        subprocess.run(args + [name], check=True, capture_output=True)
        self.users.append(name)
        if password:
            subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)
        return name

    def enroll(self, user, *words, store=None, key_file=None, key_words=None):
        """Runs mfa-enroll for `user` as an operator would, typing the code oathtool computes;
        `key_words` (the hsm_* words) stand in for key_file= when given.

        Returns the App, with the recovery codes mfa-enroll printed."""
        keys = list(key_words) if key_words else [f"key_file={key_file or self.key_file}"]
        args = [str(ENROLL), f"store={store or self.store}", *keys, *words, user]
        process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        out, secret, step = [], None, None
        for line in process.stdout:
            out.append(line)
            match = re.match(r"Key: ([A-Z2-7 ]+)$", line.strip())
            if match:
                secret = match.group(1).replace(" ", "")
                step = now_step()
                process.stdin.write(totp(secret, step) + "\n")
                process.stdin.flush()
        process.wait(timeout=60)
        text = "".join(out)
        if process.returncode != 0 or secret is None:
            raise AssertionError(f"mfa-enroll failed ({process.returncode}):\n{text}")
        codes = re.findall(r"^  ([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{2})$", text, re.M)
        app = App(secret, step, codes)
        app.output = text
        return app

    def import_totp(self, user, secret, digits):
        """Imports an authenticator app for `user` (base32 `secret`, `digits`-digit codes) with
        `mfactl import otpauth`, as an operator moving users from another system would."""
        if not MFACTL.exists():
            raise AssertionError(f"{MFACTL} is not built (cmake builds it unless MFA_BUILD_MFACTL=OFF)")
        uri = f"otpauth://totp/Imported:{user}?secret={secret}&digits={digits}&issuer=Imported\n"
        result = subprocess.run([str(MFACTL), "import", "otpauth", "--store", self.store, "--key-file",
                                 str(self.key_file), "--key-id", "pam", "--json", "-"],
                                input=uri, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and '"imported":1' in result.stdout.replace(" ", ""), \
            result.stdout + result.stderr

    def mfa_enroll(self, *args, input_text=""):
        """Runs mfa-enroll with `args` as they are; returns (exit status, output)."""
        result = subprocess.run([str(ENROLL), *args], input=input_text, capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout + result.stderr

    def configure(self, json_text, store=None, tenant=None):
        words = [f"tenant={tenant}"] if tenant else []
        status, out = self.mfa_enroll(f"store={store or self.store}", f"key_file={self.key_file}", *words,
                                      f"--config={json_text}")
        assert status == 0, out

    def pam(self, service, user, typed, valgrind=False, timeout=60):
        """pamtester SERVICE USER authenticate, typing `typed`; returns (exit status, output, seconds)."""
        args = ["pamtester", service, user, "authenticate"]
        if valgrind:
            args = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                    "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect"] + args
        data = typed if isinstance(typed, bytes) else typed.encode()
        start = time.monotonic()
        result = subprocess.run(args, input=data + b"\n", capture_output=True, timeout=timeout)
        out = (result.stdout + result.stderr).decode("utf-8", "replace")
        return result.returncode, out, time.monotonic() - start

    # --- the private PostgreSQL server ---------------------------------------------

    def pg_start(self):
        out = subprocess.run([str(PG_SCRIPT), "start", str(PG_PORT)], check=True, capture_output=True, text=True)
        self.pg_started = True
        return out.stdout.strip().splitlines()[-1]

    def pg_halt(self):
        subprocess.run([str(PG_SCRIPT), "halt", str(PG_PORT)], check=True, capture_output=True)

    def pg_processes(self):
        """The postmaster's pid and its children's."""
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
        return pids

    def pg_signal(self, sig):
        for pid in self.pg_processes():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    # --- private sshd servers ------------------------------------------------------------

    def sshd(self, port, module_words, auth_lines=SSHD_AUTH_LINES):
        """Starts a private sshd on 127.0.0.1:`port` (its own config and host key, not the
        system's service) whose PAM service, written here, runs pam_unix and then the module
        with `module_words`; `auth_lines` are its authentication settings (public keys are
        always off). sshd names its PAM service after the name it runs under, so it
        runs as a symbolic link named like the service. Returns the host key's public half."""
        name = f"libmfa-test-{self.id}-sshd{port}"
        self.service([module_words], before=["auth required pam_unix.so"], after=(), name=name)
        link = self.dir / name
        link.symlink_to(shutil.which("sshd") or "/usr/sbin/sshd")
        host_key = self.dir / f"host-key-{port}"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], check=True)
        config = self.dir / f"sshd-{port}.conf"
        config.write_text("\n".join([
            f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}",
            f"PidFile {self.dir}/sshd-{port}.pid", *auth_lines, "PubkeyAuthentication no", "PermitRootLogin no",
            f"AllowUsers {' '.join(self.users)}", "LogLevel VERBOSE", "UseDNS no", "MaxStartups 100",
            f"AuthorizedKeysFile {self.dir}/none", "",
        ]))
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation folder
        subprocess.run([str(link), "-t", "-f", str(config)], check=True)
        log = open(self.dir / f"sshd-{port}.log", "w")
        process = subprocess.Popen([str(link), "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
        self.processes.append(process)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"sshd on port {port} did not start:\n" + self.sshd_log(port))
                time.sleep(0.1)
        return (pathlib.Path(str(host_key) + ".pub")).read_text().split()[1]

    def sshd_log(self, port):
        return (self.dir / f"sshd-{port}.log").read_text(errors="replace")

    # --- the end ----------------------------------------------------------------------

    @staticmethod
    def end_processes_of(user):
        """Ends what a test user still runs (a session sshd started for a test login), by pid."""
        try:
            uid = pwd.getpwnam(user).pw_uid
        except KeyError:
            return
        for status in pathlib.Path("/proc").glob("[0-9]*/status"):
            try:
                uids = next(line for line in status.read_text().splitlines() if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            if int(uids.split()[1]) == uid:
                try:
                    os.kill(int(status.parent.name), signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def close(self):
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        for path in self.services:
            path.unlink(missing_ok=True)
        for user in self.users:
            self.end_processes_of(user)
            subprocess.run(["userdel", "-r", "-f", user], capture_output=True)
        if self.pg_started:
            subprocess.run([str(PG_SCRIPT), "stop", str(PG_PORT)], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class SyslogCatcher:
    """Receives what the module logs, on /dev/log, when no syslog daemon holds it."""

    PATH = "/dev/log"

    def __init__(self):
        self.messages = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.PATH)
        os.chmod(self.PATH, 0o666)
        self.sock.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while self.running:
            try:
                self.messages.append(self.sock.recv(65536).decode("utf-8", "replace"))
            except socket.timeout:
                continue
            except OSError:
                return

    def text(self):
        time.sleep(0.3)
        return "\n".join(self.messages)

    @staticmethod
    def end_processes_of(user):
        """Ends what a test user still runs (a session sshd started for a test login), by pid."""
        try:
            uid = pwd.getpwnam(user).pw_uid
        except KeyError:
            return
        for status in pathlib.Path("/proc").glob("[0-9]*/status"):
            try:
                uids = next(line for line in status.read_text().splitlines() if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            if int(uids.split()[1]) == uid:
                try:
                    os.kill(int(status.parent.name), signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def close(self):
        self.running = False
        self.thread.join(timeout=2)
        self.sock.close()
        os.unlink(self.PATH)


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def freeze_server(run):
    run.pg_signal(signal.SIGSTOP)


def thaw_server(run):
    run.pg_signal(signal.SIGCONT)
