#!/usr/bin/python3
"""Writes a PSKC file with Debian's python3-pskc (run with /usr/bin/python3).

    pskc_write.py OUT.pskcxml MODE [ARG]

MODE is ``plain``, ``psk`` (ARG: the key in hex; AES-128/192/256-CBC by its
length, HMAC-SHA1, the counter encrypted too) or ``pbkdf2`` (ARG: the
password; HMAC-SHA256 as the PRF). The file holds, each with a random key:
two HOTP tokens (one at counter 7 with 8 digits, one assigned to the user
``pskc-user`` by its UserId), a TOTP token (60 s, SHA256) and a YubiKey.
Prints a JSON list of what it wrote, secrets in hex, for the test to check.
"""

import json
import os
import sys

import pskc


def main():
    out, mode = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else None
    container = pskc.PSKC()
    keys = []
    serial = int.from_bytes(os.urandom(3), "big")

    def add(kind, **fields):
        nonlocal serial
        serial += 1
        secret = os.urandom(16 if kind == "yubico_otp" else 20)
        algorithm = {"hotp": "urn:ietf:params:xml:ns:keyprov:pskc:hotp",
                     "totp": "urn:ietf:params:xml:ns:keyprov:pskc:totp",
                     "yubico_otp": "http://www.yubico.com/#yubikey-aes"}[kind]
        entry = {"kind": kind, "serial": str(serial), "secret": secret.hex()}
        extra = {}
        if kind == "yubico_otp":
            public = "".join("cbdefghijklnrtuv"[b >> 4] + "cbdefghijklnrtuv"[b & 15] for b in os.urandom(6))
            private = os.urandom(6).hex()
            extra["key_userid"] = "CN=%s, UID=%s" % (public, private)
            extra["response_length"] = 44
            extra["response_encoding"] = "ALPHANUMERIC"
            entry.update(public_id=public, private_id=private)
        if "user" in fields:
            extra["key_userid"] = fields.pop("user")
            entry["user"] = extra["key_userid"]
        extra.update(fields)
        container.add_key(id=str(serial), serial=str(serial), secret=secret, algorithm=algorithm,
                          manufacturer="python-pskc", **extra)
        entry.update({k: v for k, v in fields.items() if k in ("counter", "response_length", "time_interval")})
        keys.append(entry)

    add("hotp", counter=7, response_length=8)
    add("hotp", counter=0, response_length=6, user="pskc-user")
    add("totp", time_interval=60, response_length=6, algorithm_suite="HMAC-SHA256")
    add("yubico_otp")
    if mode == "psk":
        key = bytes.fromhex(arg)
        container.encryption.setup_preshared_key(key=key, algorithm="aes%d-cbc" % (len(key) * 8),
                                                 fields=["secret", "counter"])
    elif mode == "pbkdf2":
        container.encryption.setup_pbkdf2(arg, iterations=2000, prf="hmac-sha256")
    elif mode != "plain":
        sys.exit("unknown mode %s" % mode)
    container.write(out)
    print(json.dumps(keys))


if __name__ == "__main__":
    main()
