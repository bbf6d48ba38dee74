#!/usr/bin/python3
"""Prints the OTPs a YubiKey types, made by Debian's python3-yubiotp (run with /usr/bin/python3).

    yubikey_otps.py KEY_HEX PRIVATE_ID_HEX PUBLIC_ID SESSION COUNTER COUNT

Simulates a key whose non-volatile use counter is SESSION and whose session
counter starts at COUNTER, touched COUNT times: one OTP per line, as
``yubiotp.otp.YubiKey.generate`` and ``encode_otp`` make them (the session
counter wraps after 0xff into the next use counter, as a YubiKey's does).
"""

import binascii
import sys

from yubiotp.otp import YubiKey, encode_otp


def main():
    key, uid, public_id, session, counter, count = sys.argv[1:]
    device = YubiKey(binascii.unhexlify(uid), int(session), int(counter))
    for _ in range(int(count)):
        otp = encode_otp(device.generate(), binascii.unhexlify(key), public_id.encode("ascii"))
        print(otp.decode("ascii"))


if __name__ == "__main__":
    main()
