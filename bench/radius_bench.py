"""rlm_mfa's challenge-response rounds per second against FreeRADIUS with pap alone (the
floor), on one server, with radclient as the client (bench/radius.sh runs it).

One freeradius (-f, threaded) on an SQLite store has two virtual servers: the floor
(pap against the users file: an Access-Request, an Access-Accept) and mfa (the same
pap, then rlm_mfa: an Access-Request with the password, an Access-Challenge, an
Access-Request with the code and the State, an Access-Accept). Each side sends the
same number of sign-ins with radclient -p (requests in flight), each user once per
run with a code made before the clock starts (as an authenticator app shows it);
the mfa side's round is its two radclient runs, back to back. Both sides print the
replies (-x: the challenge's State is read from them). Sides alternate, [rounds]
times each, the best of each kept (the machine is shared). A benchmark, not a test.
"""

import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "radius" / "tests"))
from radius_harness import PASSWORD, SECRET, Run, libmfa, parse_replies  # noqa: E402


def radclient(port, packets, parallel):
    text = "\n\n".join("\n".join(lines + ["Message-Authenticator = 0x00"]) for lines in packets) + "\n"
    start = time.perf_counter()
    result = subprocess.run(["radclient", "-x", "-r", "3", "-t", "10", "-p", str(parallel),
                             f"127.0.0.1:{port}", "auth", SECRET], input=text, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    return parse_replies(result.stdout), seconds, result.stdout + result.stderr


def cpu(server):
    """The server process's CPU seconds so far (user and system)."""
    fields = open(f"/proc/{server.process.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def floor(server, users, parallel):
    packets = [[f'User-Name = "{u}"', f'User-Password = "{PASSWORD}"'] for u in users]
    replies, seconds, out = radclient(server.floor_port, packets, parallel)
    assert [r.code for r in replies] == ["Access-Accept"] * len(users), out[-2000:]
    return len(users) / seconds


def mfa(server, users, apps, parallel, step):
    codes = {u: apps[u].at(step * PERIOD) for u in users}
    first = [[f'User-Name = "{u}"', f'User-Password = "{PASSWORD}"'] for u in users]
    challenges, first_seconds, out = radclient(server.port, first, parallel)
    assert [r.code for r in challenges] == ["Access-Challenge"] * len(users), out[-2000:]
    # radclient prints each packet it sends (its Id and User-Name) and each reply (its Id): a reply
    # belongs to the last request sent with its Id (an Id is not reused while a reply is awaited).
    user_of, pending, answers = {}, None, []
    states = iter(challenges)
    for line in out.splitlines():
        if line.startswith("Sent Access-Request Id "):
            pending = int(line.split()[3])
        elif pending is not None and line.strip().startswith("User-Name = "):
            user_of[pending] = line.split('"')[1]
            pending = None
        elif line.startswith("Received Access-Challenge Id "):
            reply = next(states)
            user = user_of[reply["Id"]]
            answers.append([f'User-Name = "{user}"', f'User-Password = "{codes[user]}"',
                            f"State = {reply['State']}"])
    accepts, second_seconds, out = radclient(server.port, answers, parallel)
    assert [r.code for r in accepts] == ["Access-Accept"] * len(users), out[-2000:]
    return len(users) / (first_seconds + second_seconds)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
    rounds = min(int(sys.argv[2]) if len(sys.argv) > 2 else 5, 12)
    parallel = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    run = Run()
    try:
        run.configure({"state": "ENABLED", "providers": {"totp": "ENABLED"}, "totp": {"adjacentIntervals": 10}})
        server = run.server("bench", module_options={"max_challenges": "100000"})
        # The floor: the same server, pap alone, on a listener of its own.
        server.floor_port = run.port()
        config = server.dir / "radiusd.conf"
        config.write_text(config.read_text() + f"""
server floor {{
	listen {{
		type = auth
		ipaddr = 127.0.0.1
		port = {server.floor_port}
	}}
	authorize {{
		files
		pap
	}}
	authenticate {{
		Auth-Type PAP {{
			pap
		}}
	}}
}}
""")
        # As Debian's radiusd.conf has it: no "Login OK" line per request (rlm_mfa's audit lines stay).
        text = config.read_text().replace("\tauth = yes\n", "\tauth = no\n")
        config.write_text(text)
        server.start()
        users = [f"bench{run.id}u{i}" for i in range(count)]
        ctx = run.context()
        apps = {}
        for u in users:
            secret = os.urandom(20)
            ctx.import_totp(run.user(u), secret)
            apps[u] = libmfa.TOTP(secret)
        # Warm: each user signs in once, and the floor runs once, untimed. Each sign-in of a user
        # takes the code of a later time step than the one before (the window is 10 steps).
        step = int(time.time()) // PERIOD - 5
        floor(server, users, parallel)
        mfa(server, users, apps, parallel, step)
        best_floor = best_mfa = 0.0
        cpu_floor = cpu_mfa = float("inf")
        for _ in range(rounds):
            step += 1
            before = cpu(server)
            best_floor = max(best_floor, floor(server, users, parallel))
            middle = cpu(server)
            best_mfa = max(best_mfa, mfa(server, users, apps, parallel, step))
            cpu_floor = min(cpu_floor, (middle - before) / count)
            cpu_mfa = min(cpu_mfa, (cpu(server) - middle) / count)
        print(f"sign-ins: {count} users, {parallel} in flight (radclient -p), best of {rounds}")
        print(f"floor (pap alone)        {best_floor:8.0f} Access-Requests/s")
        print(f"mfa (challenge-response) {best_mfa:8.0f} rounds/s ({2 * best_mfa:.0f} Access-Requests/s)")
        print(f"ratio rounds/s / floor requests/s: {best_mfa / best_floor:.2f}")
        print(f"ratio requests/s / floor requests/s: {2 * best_mfa / best_floor:.2f}")
        print(f"server CPU: {cpu_floor * 1e6:.0f} us per pap request, {cpu_mfa * 1e6:.0f} us per mfa round "
              f"({cpu_mfa / 2 * 1e6:.0f} us per request)")
    finally:
        run.close()


PERIOD = 30

if __name__ == "__main__":
    main()
