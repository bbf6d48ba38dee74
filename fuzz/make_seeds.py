#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: fuzz/corpus/<target>/seed-*.

The seeds come from the shared known-answer vectors (Tests/vectors), the
examples in the README and the tests, and the shapes each input takes in the
field. Run it again after changing it; it replaces the seed-* files and leaves
everything else in the folders (regress-* inputs, which are crashes found once
and kept forever) alone.

    python3 fuzz/make_seeds.py [TARGET...]   (default: every target)
"""
import base64
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
VECTORS = os.path.join(ROOT, "Tests", "vectors", "otp_vectors.txt")
ALGORITHMS = {"SHA1": 1, "SHA256": 2, "SHA512": 3}


def vectors():
    with open(VECTORS, encoding="ascii") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                yield line.split()


def base32_seeds():
    seeds = []
    for fields in vectors():
        if fields[0] == "base32":
            plain, encoded = ("" if v == "-" else v for v in fields[1:3])
            seeds += [encoded.encode(), encoded.rstrip("=").encode(), encoded.lower().encode(), plain.encode()]
    seeds += [b"JBSWY3DPEHPK3PXP", b"jbsw y3dp ehpk 3pxp", b"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
              b"MZXW6YTBOI======", b"MZXW6YTBOI=", b"MZXW6YTB1", b"AB", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
              b"\xff\xfe", "MZXW6YTBÖ".encode(), b"=" * 8, b"A" * 103]
    return seeds


def key_uri_seeds():
    secret = "JBSWY3DPEHPK3PXP"
    return [s.encode() if isinstance(s, str) else s for s in [
        f"otpauth://totp/ACME%20Co:alice%40example.com?secret={secret}&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30",
        f"otpauth://totp/Example:alice@google.com?secret={secret}&issuer=Example",
        f"otpauth://totp/Example%3Aalice%40google.com?secret={secret}&issuer=Example",
        f"otpauth://totp/alice?secret={secret}",
        f"otpauth://totp/a?secret={secret}&algorithm=SHA256&digits=8&period=60",
        f"otpauth://totp/a?secret={secret}&algorithm=SHA512&digits=7&period=31536000",
        f"otpauth://hotp/x?secret=MZXW6YTB&counter=42",
        f"otpauth://hotp/x?secret=MZXW6YTB&counter=18446744073709551615",
        f"OTPAUTH://TOTP/a?SECRET={secret.lower()}",
        f"otpauth://totp/a?secret={secret}#fragment",
        f"otpauth://totp/A%20B:c%3Ad?secret={secret}&issuer=A+B&x=y&&",
        f"otpauth://totp/%E2%9C%93:%C3%A9?secret={secret}&issuer=%E2%9C%93",
        f"otpauth://totp/A:x?secret={secret}&issuer=B",
        f"otpauth://totp/x?secret={secret}&secret={secret}",
        f"otpauth://totp/x?secret={secret}&digits=9",
        f"otpauth://totp/x?secret={secret}&period=0",
        f"otpauth://totp/x?secret={secret}&algorithm=MD5",
        "otpauth://totp/%FF?secret=MZXW6YTB",
        "otpauth://totp/a%ZZb?secret=MZXW6YTB",
        "otpauth://totp/x?secret=MY1",
        "otpauth://totp/:x?secret=MZXW6YTB",
        "otpauth://sotp/x?secret=MZXW6YTB",
        b"otpauth://totp/\xff\xfe?secret=MZXW6YTB",
        "otpauth://totp/a?secret=" + "A" * 1640,
    ]]


def import_seeds():
    def uri(length, extra=""):
        secret = base64.b32encode(bytes(range(1, length + 1))).decode().rstrip("=")
        return f"otpauth://totp/Imported:bob?secret={secret}&issuer=Imported{extra}".encode()
    return key_uri_seeds() + [uri(9), uri(10), uri(128), uri(129), uri(20, "&algorithm=SHA512&digits=8&period=60"),
                              uri(32, "&algorithm=SHA256&period=1"), uri(20, "&period=31536000")]


def import_files_seeds():
    """The importers' files, after a byte that picks the format: 0 google-authenticator, 1 otpauth lines,
    2 pam_oath users file, 3 CSV, 4 YubiKey CSV (fuzz/fuzz_import_files.c)."""
    b32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    hexa = "3132333435363738393031323334353637383930"
    otpauth = [
        f"otpauth://totp/ACME:ot-alice?secret={b32}&issuer=ACME\n# a comment\n\n"
        f"otpauth://hotp/ACME:ot-bob?secret={b32}&counter=3\notpauth://totp/ACME:ot-carol?secret=not*base32\n"
        "https://example.com/\notpauth://totp/ACME:ot-dave?secret=JBSWY3DPEHPK3PXP&digits=8&period=60&algorithm=SHA256\n",
        f"otpauth://totp/alice?secret={b32}\r\notpauth://totp/alice?secret={b32}\r\n",
        f"otpauth://totp/Example:alice@google.com?secret={b32}&issuer=Example",
    ]
    users = [
        f"# pam_oath users file\nHOTP/T30/6 uf-alice - {hexa}\nHOTP/T60/8\tuf-bob\t1234\t{hexa} 0 755224 "
        f"2024-01-01T00:00:00L\nHOTP uf-carol - {hexa}\nHOTP/E/8 uf-dave - {hexa}\nHOTP/T30 uf-erin - 12345\n"
        "HOTP/T30 uf-frank\n",
        f"HOTP/T30 alice - {hexa}\nHOTP/T30 alice - {hexa}\n",
        f"HOTP/T30/8 bob + {hexa}\n",
        # As liboath rewrites a line after a login: the counter, the last code and the local time.
        f"HOTP/T30\talice\t-\t{hexa}\t0\t287082\t2023-11-14T22:13:20L\r\nHOTP/T30 {hexa}\r\n",
        f"\ufeffHOTP/T30 bob - {hexa} 0 28708 2023-02-29T00:00:00L\rHOTP/T30 ali\x00ce - {hexa}\r",
    ]
    csv = [
        f"uid,secret,issuer,digits,period,algorithm\ncsv-alice,{b32},ACME,,,\n"
        "\"csv-bob\",\"JBSWY3DPEHPK3PXP\",\"ACME, Inc.\",8,60,SHA256\ncsv-carol,!!!,ACME,6,30,SHA1\n"
        f"csv-dave,{b32},ACME,9,30,SHA1\n",
        f"alice,{b32}\r\n\"bob \"\"q\"\"\",{b32},\"multi\nline\",6,30,SHA512\n",
        f"uid,secret\n,{b32}\nalice,\n",
        # As spreadsheets save it: a byte order mark, CR LF, quotes around commas, quotes and line breaks.
        f"\ufeffuid,secret,issuer\r\nalice,{b32},\"ACME, \"\"Inc.\"\"\"\r\nbob,{b32},\"two\r\nlines\"\r\n",
        f"secret,uid\r{b32},alice\r{b32},bob",
        f"{b32},alice\n{b32}\nbob;{b32};ACME\nali\x00ce,{b32}\n",
        f"carol,\"{b32}\n",
    ]
    ga = [
        f"{b32}\n\" RATE_LIMIT 3 30 1700000000\n\" WINDOW_SIZE 17\n\" TOTP_AUTH\n12345678\n87654321\n1234\n",
        f"{b32}\n\" HOTP_COUNTER 1\n12345678\n",
        f"{b32}\n\" TOTP_AUTH\n\" DISALLOW_REUSE\n\" STEP_SIZE 60\n",
        "",
        f"{b32}\n",
    ]
    yubikey = [
        # ykman otp yubiotp --config-output, then the YubiKey Personalization Tool's log.
        "12345678,vvcccbhbkbgc,ca62baca62ba,2b7e151628aed2a6abf7158809cf4f3c,,2024-01-02T03:04:05,\n"
        "12345679,notmodhex!,ca62baca62ba,2b7e151628aed2a6abf7158809cf4f3c,,,\n",
        "LOGGING START,01/02/24 03:04\nYubico OTP,01/02/24 03:05,1,vv dd cc bb hb kb,ca 62 ba ca 62 bb,"
        "2b 7e 15 16 28 ae d2 a6 ab f7 15 88 09 cf 4f 3d,,,0,0,0\n"
        f"OATH-HOTP,01/02/24 03:06,2,,,{hexa},,,0,0,0\n",
        "\ufeff87654321,vvcccbhbkbgd,ca62baca62bc,2b7e151628aed2a6abf7158809cf4f3e,000000000000,,\r\n",
    ]
    return [bytes([k]) + text.encode() for k, texts in enumerate([ga, otpauth, users, csv, yubikey])
            for text in texts] + [
        b"\x01" + "otpauth://totp/caf\u00e9?secret=JBSWY3DPEHPK3PXP".encode(), b"\x03\xff\xfe,x\n"]


def config_seeds():
    full = ('{"state":"ENABLED","providers":{"totp":"ENABLED","phone":"ENABLED"},'
            '"totp":{"adjacentIntervals":5},"phone":{"appVerification":"REQUIRED"},'
            '"testPhoneNumbers":{"+15555550100":"123456","+15555550101":"654321"},'
            '"limits":{"sessionLifetime":600,"pendingCredentialLifetime":300,"enrollmentDeadline":600,'
            '"recentLoginMaxAge":300,"maxFactors":5,"freeAttempts":5,"backoffBase":1,"backoffMax":900,'
            '"failureMemory":3600,"smsCodeLifetime":300,"smsMaxAttempts":5,"smsResendCooldown":30,'
            '"smsPerNumberHour":5,"smsPerNumberDay":10,"smsPerUserHour":10,"smsPerUserDay":20,'
            '"smsPerTenantHour":1000,"smsPerTenantDay":10000}}')
    documents = [
        "{}", full,
        '{"state":"MANDATORY","providers":{"totp":"ENABLED"}}',
        '{"state":"DISABLED"}',
        '{"totp":{"adjacentIntervals":0}}', '{"totp":{"adjacentIntervals":10}}',
        '{"totp":{"adjacentIntervals":11}}', '{"totp":{"adjacentIntervals":-1}}',
        '{"totp":{"adjacentIntervals":5.0}}', '{"totp":{"adjacentIntervals":1e1}}',
        '{"phone":{"appVerification":"DISABLED"}}',
        '{"testPhoneNumbers":{' + ",".join(f'"+1555555{i:04d}":"00000{i % 10}"' for i in range(10)) + "}}",
        '{"testPhoneNumbers":{' + ",".join(f'"+1555555{i:04d}":"123456"' for i in range(11)) + "}}",
        '{"testPhoneNumbers":{"+15555550100":"12345"}}',
        '{"testPhoneNumbers":{"555-0100":"123456"}}',
        '{"limits":{"maxFactors":10,"smsPerTenantDay":100000000,"smsResendCooldown":0}}',
        '{"limits":{"maxFactors":0}}', '{"limits":{"failureMemory":59}}',
        '{"limits":{"smsPerTenantHour":9223372036854775807}}',
        '{"state":"ENABLED","state":"DISABLED"}',
        '{"unknown":1}', '[]', '"ENABLED"', '{"state":"enabled"}',
        ' { "state" : "ENABLED" , "providers" : { "totp" : "ENABLED" } } ',
        '{"state":"\\u0045NABLED"}',
        '{"a":' * 40 + "1" + "}" * 40,
        # The shapes the guides write (Admin SDK multiFactorConfig, REST mfa), accepted once libmfa reads them.
        '{"multiFactorConfig":{"state":"ENABLED","factorIds":["phone"],"providerConfigs":[{"state":"ENABLED",'
        '"totpProviderConfig":{"adjacentIntervals":5}}]}}',
        '{"mfa":{"state":"ENABLED","enabledProviders":["PHONE_SMS"],"providerConfigs":[{"state":"ENABLED",'
        '"totpProviderConfig":{"adjacentIntervals":3}}]}}',
    ]
    seeds = [d.encode() for d in documents]
    # Project and tenant together (a NUL byte between them).
    seeds += [full.encode() + b"\0" + b'{"totp":{"adjacentIntervals":1},"testPhoneNumbers":{}}',
              b'{"state":"ENABLED"}\0{"state":"MANDATORY","providers":{"phone":"ENABLED"}}',
              b"{}\0" + full.encode()]
    # The WebAuthn section: every field, arrays, null, and a tenant laid over a project.
    seeds += [b'{"state":"ENABLED","providers":{"webauthn":"ENABLED","totp":"ENABLED"},"webauthn":{"rpId":"example.com",'
              b'"rpName":"Example","origins":["https://example.com","https://login.example.com:8443"],'
              b'"userVerification":"required","residentKey":"preferred","attestation":"direct","timeout":60000}}',
              b'{"webauthn":{"rpId":"localhost","origins":["http://localhost:5000"]}}\0{"webauthn":{"rpId":null,'
              b'"origins":[],"attestation":"none","residentKey":"required"},"providers":{"webauthn":"DISABLED"}}',
              b'{"webauthn":{"attestation":"indirect","attestationRoots":["-----BEGIN CERTIFICATE-----\\nMIIB\\n'
              b'-----END CERTIFICATE-----\\n"],"origins":["android:apk-key-hash:abc"]}}']
    # The email section and remembered devices: every field, out of range, wrong types, a tenant that forbids.
    seeds += [b'{"providers":{"email":"ENABLED"},"email":{"codeLifetime":600,"enrollVerifiedSignInEmail":true}}',
              b'{"email":{"maxAttempts":0}}', b'{"email":{"enrollVerifiedSignInEmail":1}}',
              b'{"rememberedDevices":{"state":"ENABLED","days":90,"sliding":true,"maxPerUser":100}}\0'
              b'{"rememberedDevices":{"state":"DISABLED"}}',
              b'{"rememberedDevices":{"days":91}}', b'{"rememberedDevices":{"sliding":"yes"}}']
    # Hardware tokens: HOTP's look-ahead and resynchronization window, the providers, out of range.
    seeds += [b'{"state":"ENABLED","providers":{"hotp":"ENABLED","yubico_otp":"ENABLED"},'
              b'"hotp":{"lookAhead":10,"resyncWindow":1000},"yubicoOtp":{}}',
              b'{"hotp":{"lookAhead":0,"resyncWindow":2}}\0{"hotp":{"lookAhead":11,"resyncWindow":10001}}',
              b'{"hotp":{"state":"ENABLED","lookAhead":5}}', b'{"yubicoOtp":{"state":"ENABLED","window":1}}']
    return seeds


def otp_seeds():
    """mode, algorithm, digits, window, period, T0, time/counter, key length, key, code (see fuzz_otp.c)."""
    def case(mode, algorithm, digits, window, period, t0, when, key, code):
        return (struct.pack(">BbbbqqqH", mode, algorithm, digits, window, period, t0, when, len(key))
                + key + code)

    seeds = []
    for fields in vectors():
        if fields[0] not in ("hotp", "totp"):
            continue
        kind, algorithm, key, moment, digits, code = fields
        if kind == "hotp":
            seeds.append(case(1, ALGORITHMS[algorithm], int(digits), 0, 0, 0, int(moment), key.encode(), code.encode()))
        elif kind == "totp":
            seeds.append(case(0, ALGORITHMS[algorithm], int(digits), 1, 30, 0, int(moment), key.encode(), code.encode()))
    key = b"12345678901234567890"
    seeds += [
        case(2, 0, 0, 1, 0, 0, 59, key, b"287082"),                      # defaults (NULL params)
        case(0, 1, 6, 10, 30, 0, 59, key, b"\xff\x01"),                  # the right code one step on
        case(0, 1, 6, 10, 30, 0, 59, key, b"\xff\xf6 "),                 # ten steps back, a space after
        case(1, 1, 6, 10, 0, 0, -3, key, b"\xff\x05"),                    # counter 2^64 - 3: near the end
        case(0, 3, 8, 0, 1, -(2**63), 2**63 - 1, key, b"\xff\x00"),      # the largest step
        case(0, 1, 6, 0, 30, 100, 99, key, b"000000"),                   # before T0
        case(0, 1, 9, 0, 30, 0, 59, key, b"0000000"),                    # digits out of range
        case(0, 4, 6, 0, 30, 0, 59, key, b"000000"),                     # no such algorithm
        case(0, 1, 6, 11, 30, 0, 59, key, b"000000"),                    # window out of range
        case(0, 1, 6, 0, 31536001, 0, 59, key, b"000000"),               # period out of range
        case(0, 1, 6, 0, 30, 0, 59, b"", b"000000"),                     # no key
        case(0, 1, 6, 0, 30, 0, 59, key * 52, b"000000"),                # key too long
        case(0, 1, 6, 1, 30, 0, 59, key, "２８７０８２".encode()),         # full-width digits
        case(0, 1, 6, 1, 30, 0, 59, key, b"\xff\x00\xc3"),               # not UTF-8
    ]
    return seeds


def tokens_seeds():
    """mode byte (token, call, raw), then 4-byte edits: op, position, byte (see fuzz_tokens.c)."""
    seeds = []
    for kind in range(4):
        seeds.append(bytes([kind, 0, 0, 10, ord("B")]))                   # one character changed
        seeds.append(bytes([kind, 3, 0, 60, 0]))                          # cut short
        seeds.append(bytes([kind, 1, 0, 3, ord("A"), 2, 0, 4, 0]))        # one inserted, one deleted
        seeds.append(bytes([kind | 0x10 | ((kind + 1) % 4) << 2]))        # presented to another call
    seeds.append(bytes([0x20]) + b"v1.")
    seeds.append(bytes([0x22]) + b"v1." + base64.urlsafe_b64encode(bytes(80)).rstrip(b"="))
    seeds.append(bytes([0x23]) + b"v2.AAAA")
    seeds.append(bytes([0x21]) + b"v1.AAAA====")
    return seeds


def phone_seeds():
    numbers = [b"+15105551234", b"+4930123456", b"+6831234", b"+123456789012345", b"+1234567890123456",
               b"+0123456789", b"15105551234", b"+1 510 555 1234", b"+1-510-555-1234", b"+1(510)5551234",
               b"++15105551234", b"+", b"", "+１５１０５５５１２３４".encode(), b"+1510555123\xff", b"+15105551234 "]
    codes = [b"??????", b"?????", b"???????", b" ??????", b"??????\n", b"000000", b"", "？？？？？？".encode()]
    seeds = [n + b"\n??????" for n in numbers]
    seeds += [b"+15105551234\n" + c for c in codes]
    return seeds


def pskc_seeds():
    """PSKC files after a byte that says what comes with them (fuzz/fuzz_pskc.c): 0 nothing, 1 the fixtures'
    16-byte pre-shared key, 2 that key twice, 3 the password "qwerty"; +4 a password with the key, +8
    MFA_PSKC_IGNORE_USERS. The files python-pskc wrote for the tests (Tests/fixtures/pskc), and small ones."""
    folder = os.path.join(ROOT, "Tests", "fixtures", "pskc")

    def fixture(name):
        with open(os.path.join(folder, name + ".pskcxml"), "rb") as f:
            return f.read()

    ns = b'xmlns="urn:ietf:params:xml:ns:keyprov:pskc" Version="1.0"'
    hotp = (b'<?xml version="1.0" encoding="UTF-8"?>\n<KeyContainer ' + ns + b'>\n<KeyPackage><DeviceInfo>'
            b"<Manufacturer>ACME</Manufacturer><SerialNo>987654321</SerialNo></DeviceInfo>\n"
            b'<Key Id="1" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp"><AlgorithmParameters>'
            b'<ResponseFormat Length="8" Encoding="DECIMAL"/></AlgorithmParameters><Data><Secret><PlainValue>'
            b"MTIzNDU2Nzg5MDEyMzQ1Njc4OTA=</PlainValue></Secret><Counter><PlainValue>0</PlainValue></Counter>"
            b"</Data><UserId>alice</UserId></Key></KeyPackage>\n</KeyContainer>\n")
    return [
        b"\x00" + fixture("plain"), b"\x08" + fixture("plain"), b"\x01" + fixture("psk-aes128-sha1"),
        b"\x02" + fixture("psk-aes256-sha256"), b"\x03" + fixture("pbkdf2-sha1"), b"\x03" + fixture("pbkdf2-sha256"),
        b"\x00" + fixture("pbkdf2-sha1"), b"\x05" + fixture("psk-aes128-sha1"), b"\x00" + fixture("xxe"),
        b"\x00" + fixture("laughs"), b"\x00" + hotp, b"\x08" + hotp,
        b"\x00<KeyContainer " + ns + b"/>", b"\x00", b"\x00\xff\xfe<\x00K\x00",
        b'\x00<?xml version="1.0"?><!-- <!DOCTYPE x> --><KeyContainer ' + ns + b"><KeyPackage/></KeyContainer>",
        b"\x00<KeyContainer " + ns + b"><KeyPackage><Key><Data><Secret><PlainValue>&amp;</PlainValue>"
        b"</Secret></Data></Key></KeyPackage></KeyContainer>",
    ]


def yubico_otp_seeds():
    """What is typed at a YubiKey prompt (fuzz/fuzz_yubico_otp.c): mode 0 and the text, or mode 1, the use
    counter (2 bytes), the session counter and up to four edits (position, byte) of the key's own OTP."""
    typed = [b"", b"cccccccccccccccccccccccccccccccccccccccccccc", b"vvcccbhbkbgc", b"123456", b"123456 654321",
             b"VVCCCBHBKBGCDEFGHIJKLNRTUVCBDEFGHIJKLNRTUVCB", b"c" * 64, b"c" * 66, b"c" * 43, "ＣＣ".encode()]
    counters = [b"\x00\x01\x00", b"\x00\x07\xfc", b"\xff\xff\xff", b"\x00\x00\x00", b"\x12\x34\x56"]
    edits = [b"", b"\x00C", b"\x0cC\x0dV", b"\x20x", b"\x2b\x00", b"\x01c\x02c\x03c\x04c"]
    return [b"\x00" + t for t in typed] + [b"\x01" + c + e for c in counters for e in edits]


def pam_key_file_seeds():
    """Key files in each form pam/key_file.c reads, and near misses (see fuzz_pam_key_file.c)."""
    key = bytes(range(32)).hex().encode()
    other = bytes(range(100, 132)).hex().encode()
    return [bytes(range(32)), key + b"\n", b"pam " + key + b"\n", b"2026-11:" + key + b"\r\n",
            b"# the key\n\n2026-11\t" + key + b"\nold " + other + b"\n", b"a:b:" + key, b":" + key,
            b"pam " + key + b" extra\n", b"pam " + key[:-1] + b"\n", b"pam " + key + b"\npam " + other + b"\n",
            b"".join(b"k%d %s\n" % (i, key) for i in range(17)), b"#only a comment\n", b"id\x00 " + key]


def email_seeds():
    addresses = [b"jane@example.com", b"J.Doe+tag@Mail.Example.CO.uk", b"a@b.io", b"x!#$%&'*+/=?^_`{|}~-@xn--bcher-kva.de",
                 b"a" * 64 + b"@example.com", b"a" * 65 + b"@example.com", b"jane@example", b"jane@@example.com",
                 b".jane@example.com", b"ja..ne@example.com", b"jane@-example.com", b"jane@example.123",
                 "jané@example.com".encode(), b"Jane <jane@example.com>", b"\"jane\"@example.com", b"jane@[127.0.0.1]",
                 b"", b"@", b"jane@example.com\xff"]
    # The device token: raw text (mode byte 1), or edits of the genuine token (mode byte 0): none,
    # a byte set, one inserted, one deleted, the token cut short.
    tokens = [b"\x01", b"\x01rd1.", b"\x01rd1." + b"A" * 64, b"\x01rd1." + b"A" * 63, b"\x01v2.AAAA",
              b"\x01rd1.AAAA====", b"\x01rd1.\xff", b"\x00", b"\x00\x00\x00\x10B", b"\x00\x01\x00\x20C",
              b"\x00\x02\x00\x05A", b"\x00\x03\x00\x30A", b"\x00\x00\x00\x02x"]
    seeds = [a + b"\n\x00" for a in addresses]
    seeds += [b"jane@example.com\n" + t for t in tokens]
    return seeds


TARGETS = {"base32": base32_seeds, "key_uri": key_uri_seeds, "import": import_seeds, "import_files": import_files_seeds,
           "config": config_seeds, "otp": otp_seeds, "tokens": tokens_seeds, "phone": phone_seeds,
           "pskc": pskc_seeds, "yubico_otp": yubico_otp_seeds, "pam_key_file": pam_key_file_seeds,
           "email": email_seeds}


def webauthn_material():
    """Genuine WebAuthn parts for the fixed case of fuzz/fuzz_webauthn_support.h, from the tests' software authenticator."""
    import hashlib
    import json
    import sys

    sys.path.insert(0, os.path.join(ROOT, "Tests", "python"))
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from fido2 import cbor
    from webauthn_authenticator import Authenticator, b64, sign

    challenge = b64(bytes([0x2A] * 32))
    return hashlib, json, ed25519, cbor, Authenticator, b64, sign, challenge


def webauthn_register_seeds():
    hashlib, json, ed25519, cbor, Authenticator, b64, sign, challenge = webauthn_material()
    options = {"challenge": challenge, "rp": {"id": "example.com"}, "user": {"id": "AQ"}}
    seeds = []
    for algorithm, fmt in [("EdDSA", "none"), ("ES256", "none"), ("RS256", "none"), ("EdDSA", "packed"),
                           ("ES256", "packed"), ("RS256", "packed"), ("ES256", "packed-x5c"), ("ES256", "fido-u2f"),
                           ("ES384", "packed"), ("ES512", "packed"), ("PS256", "packed"), ("ES256", "tpm"),
                           ("RS256", "tpm"), ("ES256", "android-key"), ("ES256", "apple")]:
        key = Authenticator(algorithm, fmt)
        key.credential_id = b"fuzz-credential!"
        key.backup_eligible = algorithm == "RS256"
        credential = key.register(options)
        obj = base64.urlsafe_b64decode(credential["response"]["attestationObject"] + "==")
        seeds.append(b"\x00" + obj)
        seeds.append(b"\x01" + json.dumps(credential).encode())
    client = json.loads(base64.urlsafe_b64decode(credential["response"]["clientDataJSON"] + "=="))
    for change in ({}, {"type": "webauthn.get"}, {"origin": "https://evil.example"}, {"crossOrigin": True},
                   {"tokenBinding": {"status": "present"}}, {"challenge": challenge + "A"}):
        seeds.append(b"\x02" + json.dumps(dict(client, **change), separators=(",", ":")).encode())
    seeds += [b"\x00\xa0", b"\x00" + bytes.fromhex("9bffffffffffffffff"), b"\x01{}", b"\x02\xff"]
    return seeds


def webauthn_assert_seeds():
    hashlib, json, ed25519, cbor, Authenticator, b64, sign, challenge = webauthn_material()
    key = ed25519.Ed25519PrivateKey.from_private_bytes(bytes([7]) + bytes(31))
    auth = hashlib.sha256(b"example.com").digest() + bytes([0x05, 0, 0, 0, 9])
    client = ('{"type":"webauthn.get","challenge":"%s","origin":"https://example.com","crossOrigin":false}'
              % challenge).encode()
    signature = key.sign(auth + hashlib.sha256(client).digest())
    seeds = [b"\x00" + client, b"\x01" + auth, b"\x02" + signature, b"\x01" + auth[:32] + bytes([0x85, 0, 0, 0, 9]),
             b"\x03" + cbor.encode({1: 1, 3: -8, -1: 6, -2: bytes(32)})]
    for algorithm in ("ES256", "RS256", "EdDSA"):
        authenticator = Authenticator(algorithm)
        authenticator.credential_id = b"fuzz-credential!"
        cose = authenticator.cose
        credential = authenticator.assert_({"challenge": challenge, "rpId": "example.com"})
        seeds.append(b"\x04" + len(cose).to_bytes(2, "big") + cose + json.dumps(credential).encode())
        seeds.append(b"\x03" + cose)
    # Mode 5: extension maps from a recipe (entries, then a byte per entry, cycled): 12,000
    # unsigned, text and negative keys; the same with repeats, one written wider than it needs.
    seeds += [b"\xf0\x2e\xe0" + bytes([0, 1, 2, 4, 5, 6, 8, 9, 10]), b"\xf5\x2e\xe0" + bytes([0, 1, 0x33, 2]),
              b"\xf0\x00\x40" + bytes([0x0c, 0x1f, 0x01])]
    return seeds


TARGETS.update({"webauthn_register": webauthn_register_seeds, "webauthn_assert": webauthn_assert_seeds})


def main():
    wanted = sys.argv[1:]
    for target, make in TARGETS.items():
        if wanted and target not in wanted:
            continue
        folder = os.path.join(CORPUS, target)
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.startswith("seed-"):
                os.remove(os.path.join(folder, name))
        seeds = list(dict.fromkeys(make()))
        for number, seed in enumerate(seeds):
            with open(os.path.join(folder, f"seed-{number:03d}"), "wb") as f:
                f.write(seed)
        print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
