"""The Python sandbox: real subprocesses with short limits (each run well under 2 s)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

import harness
from harness.sandbox import run_python

REPO = str(Path(harness.__file__).resolve().parents[1])


def test_passing_code_and_its_output() -> None:
    r = run_python("def double(x):\n    return 2 * x\nprint('hello')\n", "assert double(21) == 42\n", timeout_s=2)
    assert (r.passed, r.returncode, r.timed_out) == (True, 0, False)
    assert r.stdout == "hello\n"  # the pass token is removed
    assert r.stderr == ""
    assert r.summary() == "passed"


def test_failing_assert_is_reported_with_its_line() -> None:
    r = run_python("def double(x):\n    return 3 * x\n", "assert double(1) == 2\nassert double(21) == 42\n", 2)
    assert (r.passed, r.returncode, r.timed_out) == (False, 1, False)
    assert "AssertionError" in r.stderr
    assert r.summary() == "exit code 1: AssertionError (at tests.py line 1, in <module>: assert double(1) == 2)"


def test_syntax_error_in_the_code() -> None:
    r = run_python("def f(:\n    pass\n", "assert f() is None\n", 2)
    assert not r.passed
    assert r.summary().startswith("exit code 1: SyntaxError")


def test_infinite_loop_times_out_and_is_killed() -> None:
    r = run_python("while True:\n    pass\n", "assert True\n", timeout_s=1)
    assert (r.passed, r.timed_out, r.returncode) == (False, True, -signal.SIGKILL)
    assert r.summary().startswith("timed out after")


def test_sleeping_child_times_out() -> None:
    r = run_python("import time\ntime.sleep(30)\n", "", timeout_s=1)
    assert (r.passed, r.timed_out) == (False, True)


def test_huge_allocation_fails_cleanly() -> None:
    r = run_python("blob = bytearray(2 * 1024 ** 3)\n", "assert len(blob) > 0\n", timeout_s=2, memory_mb=256)
    assert (r.passed, r.timed_out, r.returncode) == (False, False, 1)
    assert r.summary().startswith("exit code 1: MemoryError")


def test_secret_environment_is_not_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COUNCIL_TEST_SECRET_KEY", "sk-do-not-leak-1234")
    code = "import os\nprint(sorted(os.environ))\nprint(os.environ.get('COUNCIL_TEST_SECRET_KEY'))\n"
    r = run_python(code, "assert 'COUNCIL_TEST_SECRET_KEY' not in os.environ\n", 2)
    assert r.passed
    assert r.stdout == "['HOME', 'LANG', 'PATH', 'TMPDIR']\nNone\n"
    assert "sk-do-not-leak-1234" not in r.stdout + r.stderr


def test_harness_is_not_importable_and_repo_not_on_path() -> None:
    r = run_python("import harness\n", "", 2)
    assert not r.passed
    assert "ModuleNotFoundError: No module named 'harness'" in r.stderr
    ok = run_python("import sys, os\n", f"assert not any(p.startswith({REPO!r}) for p in sys.path)\n"
                    f"assert not os.getcwd().startswith({REPO!r})\n", 2)
    assert ok.passed, ok.summary()


def test_relative_writes_stay_in_the_temporary_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = "import os\nwith open('out.txt', 'w') as fh:\n    fh.write('hi')\nprint(os.getcwd())\n"
    tests = "assert open(os.path.join(os.getcwd(), 'out.txt')).read() == 'hi'\n"
    r = run_python(code, tests, 2)
    assert r.passed, r.summary()
    child_cwd = Path(r.stdout.strip())
    assert child_cwd.name.startswith("council-sandbox-")
    assert child_cwd != tmp_path
    assert not child_cwd.exists()  # removed after the run
    assert not (tmp_path / "out.txt").exists()


def test_file_size_is_limited() -> None:
    r = run_python("open('big.bin', 'wb').write(b'0' * (32 * 1024 * 1024))\n", "", 2)
    assert not r.passed
    assert "File too large" in r.stderr


def test_early_exit_is_not_a_pass() -> None:
    r = run_python("import sys\nsys.exit(0)\n", "assert False\n", 2)
    assert (r.passed, r.returncode) == (False, 3)
    assert "the code called exit(0) before the tests finished" in r.stderr
    hard = run_python("import os\nos._exit(0)\n", "assert False\n", 2)
    assert (hard.passed, hard.returncode) == (False, 0)
    assert hard.summary() == "exited with 0 before the tests finished"


def test_solution_is_a_module_and_its_main_block_does_not_run() -> None:
    code = "def f():\n    return 1\nif __name__ == '__main__':\n    raise SystemExit(1)\n"
    r = run_python(code, "from solution import f as g\nassert g() == f() == 1\nassert __name__ == '__main__'\n", 2)
    assert r.passed, r.summary()


def test_output_is_bounded_to_the_tail() -> None:
    r = run_python("print('a' * 1_000_000)\nprint('END')\n", "", 2, output_limit=1000)
    assert r.passed
    assert r.stdout.endswith("END\n")
    assert r.stdout.startswith("[... ")
    assert len(r.stdout) < 1100


def test_background_child_does_not_hang_the_run() -> None:
    r = run_python("import subprocess\nsubprocess.Popen(['sleep', '30'])\n", "", 2)
    assert (r.passed, r.timed_out) == (True, False)


def test_stdin_is_empty() -> None:
    r = run_python("import sys\ndata = sys.stdin.read()\n", "assert data == ''\n", 2)
    assert r.passed, r.summary()


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError):
        run_python("", "", 0)

