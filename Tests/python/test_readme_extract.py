"""The runner of the README's and the documentation site's code blocks
(Tests/readme/run_readme.py) finds exactly the marked blocks and refuses a
marker it cannot honour, so a block cannot silently stop being run."""

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

<!-- runnable: c expect="ok" -->

```c
int main(void) { return 0; }
```

<!-- runnable: python -->
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
        ("<!-- runnable: c -->\n```python\nx\n```\n", "a python block is marked c"),
        ("<!-- runnable: c -->\nsome prose\n", "not followed by a code block"),
        ("<!-- runnable: c -->\n", "not followed by a code block"),
        ("<!-- runnable: rust -->\n```rust\n```\n", "unknown kind 'rust'"),
        ("<!-- runnable: c expect=ok -->\n```c\n```\n", "malformed marker"),
        ("<!-- runnable: c -->\n```c\nint x;\n", "not closed"),
        # The marker's former spelling is refused, not ignored: its block would never run.
        ("<!-- readme-test: c -->\n```c\nint x;\n```\n", "malformed marker"),
    ],
)
def test_refuses_a_marker_it_cannot_honour(text, message):
    with pytest.raises(run_readme.ReadmeError, match=message):
        run_readme.extract(text)


def test_a_page_s_blocks_and_errors_name_the_page():
    blocks = run_readme.extract(SAMPLE, "docs/page.md")
    assert [block.where for block in blocks] == ["docs/page.md line 10", "docs/page.md line 15"]
    with pytest.raises(run_readme.ReadmeError, match="docs/page.md line 1: unknown kind"):
        run_readme.extract("<!-- runnable: rust -->\n```rust\n```\n", "docs/page.md")


def test_the_readme_and_every_page_of_the_site_are_run_by_default():
    documents = run_readme.documents([])
    assert documents[0] == REPO / "README.md"
    assert set(documents[1:]) == set((REPO / "docs").rglob("*.md"))
    marked = [path for path in documents if run_readme.extract(path.read_text(), str(path))]
    assert REPO / "docs" / "getting-started" / "swift.md" in marked
    assert REPO / "docs" / "guides" / "operators.md" in marked
    # The PAM guide's operator commands (key, import into the PAM store) are run as shell blocks.
    pam = run_readme.extract((REPO / "docs" / "guides" / "pam.md").read_text(), "docs/guides/pam.md")
    assert [block.kind for block in pam].count("sh") >= 2


def test_the_readme_marks_a_program_for_each_language():
    blocks = run_readme.extract((REPO / "README.md").read_text())
    run_readme.readme_checks(blocks)
    with pytest.raises(run_readme.ReadmeError, match="no block marked swift"):
        run_readme.readme_checks(run_readme.extract(SAMPLE))


def test_a_program_that_does_not_print_what_is_expected_fails():
    block = run_readme.Block("python", "signed in with totp", "", 7)
    run_readme.check_output(block, "alice signed in with totp\n")
    with pytest.raises(run_readme.ReadmeError, match="line 7"):
        run_readme.check_output(block, "nothing happened\n")
