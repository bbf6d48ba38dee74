"""A worker process of the audit trail's load test (test_audit_trail.py).

    python3 audit_trail_worker.py STORE CHAIN PREFIX USERS ROUNDS START GO

Signs each of the users PREFIX0 .. PREFIX<USERS-1> (TOTP factors imported
with the secret of ``secret(uid)``) in ROUNDS times, a wrong code then the
right one, on a clock that starts at START and moves a time step a round.
It opens its context, then waits for the file GO to exist, so that the
workers run at once. Prints the number of audit events its context
reported, as JSON.
"""

import json
import os
import sys
import time

import libmfa


def secret(uid):
    """20 bytes of the user's own."""
    return (uid.encode() * 20)[:20]


def main():
    store, chain, prefix, users, rounds, start, go = sys.argv[1:8]
    now = [int(start)]
    events = []
    ctx = libmfa.Context(store, master_key=bytes(range(32)), clock=lambda: now[0], audit=events.append,
                         audit_chain=chain)
    waited = 0.0
    while not os.path.exists(go) and waited < 60:
        time.sleep(0.01)
        waited += 0.01
    for _ in range(int(rounds)):
        now[0] += 30
        for index in range(int(users)):
            uid = "%s%d" % (prefix, index)
            user = libmfa.User(uid, email=uid + "@example.com", email_verified=True, auth_time=now[0])
            totp = libmfa.TOTP(secret(uid))
            for code in ("000000" if totp.at(now[0]) != "000000" else "999999", totp.at(now[0])):
                try:
                    ctx.sign_in(user)
                except libmfa.SecondFactorRequired as required:
                    factor = required.resolver.hints[0]
                    try:
                        required.resolver.resolve_sign_in(
                            libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(factor.uid, code))
                    except libmfa.InvalidVerificationCodeError:
                        pass
    ctx.close()
    print(json.dumps({"events": len(events)}))


if __name__ == "__main__":
    main()
