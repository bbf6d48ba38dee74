"""mfactl keys rotate over 100,000 factors, interrupted once with SIGINT and
resumed: nothing is lost, every factor still opens under the new key
alone, and a sample (every 1,000th) signs in through the library."""

import base64
import hashlib
import json
import os
import re
import signal

import pytest

from mfactl_support import KEY2, Mfactl, context, fresh_store, oathtool, sign_in, store_kinds

NOW = 1_700_000_010
COUNT = 100_000


def raw(index):
    return hashlib.sha1(b"user%d" % index).digest()


@pytest.mark.parametrize("kind", store_kinds())
def test_rotation_interrupted_and_resumed(kind, tmp_path):
    count = COUNT if kind == "sqlite" else int(os.environ.get("MFA_PG_ROTATION_FACTORS", COUNT))
    tool = Mfactl(fresh_store(kind, tmp_path), tmp_path)
    path = tmp_path / "many.csv"
    with open(path, "w") as out:
        for index in range(count):
            out.write("user%06d,%s\n" % (index, base64.b32encode(raw(index)).decode()))
    imported = tool.run("import", "csv", path, "--batch-size", "1000", "--json", check_status=0)
    assert imported.json_lines()[-1]["summary"]["imported"] == count

    # k2 is now current, k1 the previous key; stop after the first progress line.
    rotate = tool.popen("keys", "rotate", "--batch-size", "500", key=tool.key2, previous=[tool.key1])
    first = rotate.stdout.readline()
    assert first.startswith("progress:"), first
    rotate.send_signal(signal.SIGINT)
    out, err = rotate.communicate(timeout=600)
    assert rotate.returncode == 130, (out, err)
    done, left = map(lambda s: int(s.replace(",", "")),
                     re.search(r"re-encrypted ([\d,]+) records; ([\d,]+) left", out).groups())
    assert 0 < done < count and done + left == count, out
    assert "run `mfactl keys rotate` again" in err

    # Between the two runs both keys are needed: k2 alone does not open what is left.
    assert tool.run("keys", "check", key=tool.key2).status == 77

    resumed = tool.run("keys", "rotate", "--batch-size", "500", "--json", key=tool.key2, previous=[tool.key1])
    assert resumed.status == 0, resumed
    assert resumed.json_lines()[-1] == {"rotated": left, "remaining": 0, "stopped": False}

    check = tool.run("keys", "check", "--json", key=tool.key2, check_status=0)
    assert json.loads(check.out.splitlines()[-1]) == {"checked": count, "failed": 0, "failedIds": []}
    assert tool.run("keys", "check", key=tool.key1).status == 77  # nothing is under k1 any more

    with context(tool.store, key_id="k2", key=KEY2, clock=lambda: NOW) as ctx:
        for index in range(0, count, 1000):
            code = oathtool("--totp", "--now", "@%d" % NOW, raw(index).hex())[0]
            assert sign_in(ctx, "user%06d" % index, code, now=NOW).factor_id == "totp"
