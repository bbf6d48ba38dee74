"""The README runner (Tests/readme/run_readme.py) finds exactly the marked blocks
and refuses a marker it cannot honour, so a README block cannot silently stop
being run."""

import importlib.util

import pytest

from shared import REPO

_spec = importlib.util.spec_from_file_location("run_readme", REPO / "Tests" / "readme" / "run_readme.py")
run_readme = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_readme)

SAMPLE = """# Title

```c
int illustration;
```

<!-- readme-test: c expect="ok" -->

```c
int main(void) { return 0; }
```

<!-- readme-test: python -->
```python
print("ok")
```
"""


def test_finds_only_the_marked_blocks_with_their_code_and_line():
    blocks = run_readme.extract(SAMPLE)
    assert [(b.kind, b.expect, b.line) for b in blocks] == [("c", "ok", 10), ("python", None, 15)]
    assert blocks[0].code == "int main(void) { return 0; }\n"
    assert blocks[1].code == 'print("ok")\n'


@pytest.mark.parametrize(
    "text, message",
    [
        ("<!-- readme-test: c -->\n```python\nx\n```\n", "a python block is marked c"),
        ("<!-- readme-test: c -->\nsome prose\n", "not followed by a code block"),
        ("<!-- readme-test: c -->\n", "not followed by a code block"),
        ("<!-- readme-test: rust -->\n```rust\n```\n", "unknown kind 'rust'"),
        ("<!-- readme-test: c expect=ok -->\n```c\n```\n", "malformed marker"),
        ("<!-- readme-test: c -->\n```c\nint x;\n", "not closed"),
    ],
)
def test_refuses_a_marker_it_cannot_honour(text, message):
    with pytest.raises(run_readme.ReadmeError, match=message):
        run_readme.extract(text)


def test_the_readme_marks_a_program_for_each_language():
    kinds = [block.kind for block in run_readme.extract((REPO / "README.md").read_text())]
    assert kinds.count("c") >= 1 and kinds.count("python") >= 1 and kinds.count("sh") >= 2
    assert kinds.count("swift") == 1 and kinds.count("swift-manifest") == 1


def test_a_program_that_does_not_print_what_is_expected_fails():
    block = run_readme.Block("python", "signed in with totp", "", 7)
    run_readme.check_output(block, "alice signed in with totp\n")
    with pytest.raises(run_readme.ReadmeError, match="line 7"):
        run_readme.check_output(block, "nothing happened\n")
