"""The Python sandbox: real subprocesses with short limits (each run well under 2 s)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import harness
from harness import sandbox
from harness.common import vault
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
    assert r.summary() == (
        "exit code 1: AssertionError: assert failed: 3 == 2 (at tests.py line 1, in <module>: assert double(1) == 2)"
    )


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
    r = run_python(code, "assert 'COUNCIL_TEST_SECRET_KEY' not in dict(os.environ)\n", 2)
    assert r.passed
    assert r.stdout == "['HOME', 'LANG', 'PATH', 'TMPDIR']\nNone\n"
    assert "sk-do-not-leak-1234" not in r.stdout + r.stderr


def test_harness_is_not_importable_and_repo_not_on_path() -> None:
    r = run_python("import harness\n", "", 2)
    assert not r.passed
    assert "ModuleNotFoundError: No module named 'harness'" in r.stderr
    ok = run_python(
        "import sys, os\n",
        f"assert not any(p.startswith({REPO!r}) for p in sys.path)\nassert not os.getcwd().startswith({REPO!r})\n",
        2,
    )
    assert ok.passed, ok.summary()


def test_relative_writes_stay_in_the_temporary_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    name = f"out-{os.urandom(6).hex()}.txt"
    code = f"import os\nwith open({name!r}, 'w') as fh:\n    fh.write('hi')\nprint(os.getcwd())\n"
    tests = f"assert open(os.path.join(os.getcwd(), {name!r})).read() == 'hi'\n"
    r = run_python(code, tests, 2)
    assert r.passed, r.summary()
    child_cwd = Path(r.stdout.strip())
    if r.isolation == sandbox.ISOLATED:  # its own /tmp, in memory, in its own mount namespace
        assert child_cwd == Path("/tmp")
    else:  # a fresh host folder, removed after the run
        assert child_cwd.name.startswith("council-sandbox-")
        assert not child_cwd.exists()
    assert not (child_cwd / name).exists()
    assert not (tmp_path / name).exists()


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
    assert hard.summary() == "exited with 0 before the tests finished (no end record)"


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


# --- issue 10 item 1: isolation, by-value asserts, redaction -------------------------------------------

needs_namespaces = pytest.mark.skipif(
    sandbox.isolation()[1] != sandbox.ISOLATED, reason=f"no namespace isolation here: {sandbox.isolation()[1]}"
)

READ_EVERY_ENVIRON = """\
import glob
seen = []
for path in sorted(glob.glob('/proc/*/environ')) + ['/proc/1/environ']:
    try:
        seen += [v for v in open(path, 'rb').read().decode('latin-1').split('\\0') if 'KEY' in v]
    except OSError as exc:
        seen.append(type(exc).__name__)
print('\\n'.join(seen))
pids = sorted(p for p in __import__('os').listdir('/proc') if p.isdigit())
print('PIDS', pids)
"""


@needs_namespaces
def test_answer_code_cannot_read_the_harness_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key in the harness's (and its parent's) environment is in no /proc/*/environ the code can read."""
    key = "sk-test-sandbox-" + os.urandom(12).hex()
    monkeypatch.setenv("COUNCIL_SANDBOX_TEST_API_KEY", key)
    # a process started with the key in its environment at exec time, as a user's shell would be
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"], env={**os.environ, "HOLDER_API_KEY": key}
    )
    try:
        r = run_python(READ_EVERY_ENVIRON, "", 5)
    finally:
        holder.kill()
        holder.wait()
    assert r.passed and r.isolation == sandbox.ISOLATED
    assert key not in r.stdout + r.stderr and key[-16:] not in r.stdout
    assert "PIDS ['1']" in r.stdout  # a PID namespace: only the runner itself is visible


@needs_namespaces
def test_answer_code_has_no_network() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        code = f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('CONNECTED')\n"
        r = run_python(code, "", 5)
    assert not r.passed and "CONNECTED" not in r.stdout
    assert "OSError" in r.stderr and ("unreachable" in r.stderr or "refused" in r.stderr)
    out = run_python("import socket\nsocket.getaddrinfo('pypi.org', 443)\n", "", 5)
    assert not out.passed and "gaierror" in out.stderr


@pytest.mark.parametrize(
    "answer",
    [
        "class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
        "def double(x):\n    return Any()\n",
        "class Int(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
        "def double(x):\n    return Int(5)\n",
        "class Str(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n"
        "def double(x):\n    return Str('no')\n",
        "class L(list):\n    def __eq__(self, other):\n        return True\n    def __len__(self):\n        return 42\n"
        "def double(x):\n    return L([1])\n",
        "import builtins\nclass T:\n    def __bool__(self):\n        return True\n"
        "builtins.isinstance = lambda *a: True\ndef double(x):\n    return T()\n",
    ],
    ids=["always-true-eq", "int-subclass", "str-subclass", "list-subclass", "truthy-object"],
)
def test_an_always_equal_result_is_not_a_pass(answer: str) -> None:
    tests = "assert double(21) == 42\nassert double(1) != 3\nassert double(2)\nassert len(double(0)) == 42 or True\n"
    r = run_python(answer, tests, 5)
    assert (r.passed, r.returncode) == (False, 1)
    assert "AssertionError" in r.stderr and "tests.py line 1" in r.summary()


def test_replacing_builtins_does_not_silence_the_checks() -> None:
    """The runner's helpers hold the built-ins captured before the answer ran: a ``zip`` that yields
    nothing would otherwise skip the comparison of an assert inside a function (no record needed)."""
    code = (
        "import builtins\nbuiltins.zip = lambda *a, **k: iter(())\nbuiltins.hex = lambda v: '0x2a'\n"
        "builtins.isinstance = lambda *a: True\ndef double(x):\n    return 5\n"
    )
    r = run_python(code, "def check():\n    assert double(21) == 42\ncheck()\n", 5)
    assert (r.passed, r.returncode, r.asserts_checked) == (False, 1, 1)
    assert "assert failed: 5 == 42" in r.stderr


def test_plain_values_still_compare_like_python() -> None:
    code = "def f(x):\n    return {'a': [1, 2.0, (3, 'x')], 'b': {1, 2}, 'c': None, 'd': b'z', 'e': 1j}\n"
    tests = (
        "r = f(0)\nassert r == {'a': [1, 2, (3, 'x')], 'b': {2, 1}, 'c': None, 'd': b'z', 'e': 1j}\n"
        "assert r['a'][0] == 1.0 == True\nassert 'x' in r['a'][2]\nassert r['c'] is None\n"
        "assert 1 < 2 <= 2\nassert r\nfor i in range(3):\n    assert i in [0, 1, 2], 'loop'\n"
        "def check(v):\n    assert v == 7, f'got {v}'\ncheck(7)\n"
    )
    r = run_python(code, tests, 5)
    assert r.passed, r.stderr
    # one record per comparison: 1 + 2 (chain) + 1 + 1 + 2 (chain) + 1 (truth) + 3 (loop) + 1 (in check())
    assert r.asserts_checked == 12
    bad = run_python("", "def check(v):\n    assert v == 7, f'got {v}'\ncheck(8)\n", 5)
    assert not bad.passed and "AssertionError: got 8" in bad.stderr


def test_forged_nonce_and_records_with_early_exit_are_not_a_pass() -> None:
    """The answer finds the nonce in the runner's frames, prints it, writes an end record on the record
    pipe and exits with 0: the parent still misses the top-level asserts' records."""
    code = (
        "import os, sys, json\n"
        "def double(x):\n"
        "    f = sys._getframe()\n"
        "    while f is not None and 'nonce' not in f.f_locals:\n"
        "        f = f.f_back\n"
        "    nonce = f.f_locals['nonce']\n"
        "    print(nonce, flush=True)\n"
        "    os.write(int(sys.argv[1]), (json.dumps({'end': nonce}) + '\\n').encode())\n"
        "    os._exit(0)\n"
    )
    r = run_python(code, "assert double(21) == 42\nassert double(1) == 2\n", 5)
    assert (r.passed, r.returncode) == (False, 0)
    assert r.summary() == "exited with 0 but top-level assert #1 never reported a pass"
    assert "[nonce]" in r.stdout  # the printed nonce is masked too
    forged = run_python(
        code.replace(
            "json.dumps({'end': nonce})",
            "json.dumps({'i': 0, 'op': '==', 'ok': True, 'left': ['int', '0x1'], "
            "'right': ['int', '0x2']}) + '\\n' + json.dumps({'end': nonce})",
        ),
        "assert double(21) == 42\n",
        5,
    )
    assert not forged.passed and forged.summary() == "the record of assert #1 claims True but its values compare False"


def test_known_secrets_are_redacted_from_the_output(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-redact-" + os.urandom(8).hex()
    monkeypatch.setenv("COUNCIL_SANDBOX_REDACT_API_KEY", key)
    r = run_python(f"import sys\nprint({key!r})\nprint('x' + {key!r}, file=sys.stderr)\n", "", 5)
    assert key not in r.stdout + r.stderr
    assert r.stdout == "[redacted $COUNCIL_SANDBOX_REDACT_API_KEY]\n"
    assert "x[redacted $COUNCIL_SANDBOX_REDACT_API_KEY]" in r.stderr


def test_without_unshare_the_result_says_it_is_not_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no unshare/setpriv on PATH
    r = run_python("def f():\n    return 1\n", "assert f() == 1\n", 5)
    assert r.passed
    assert r.isolation == "none: unshare/setpriv (util-linux) not found on PATH"


def test_without_namespaces_the_code_still_holds_no_capability(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``unshare`` that fails (user namespaces disabled) leaves ``setpriv``: no capability; the result says so."""
    real_setpriv = shutil.which("setpriv")
    if real_setpriv is None:
        pytest.skip("setpriv is not installed")
    fake = tmp_path / "unshare"
    fake.write_text("#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n")
    fake.chmod(0o755)
    (tmp_path / "setpriv").symlink_to(real_setpriv)
    (tmp_path / "true").symlink_to(shutil.which("true") or "/bin/true")
    monkeypatch.setenv("PATH", str(tmp_path))
    r = run_python("print(open('/proc/self/status').read())\n", "", 5)
    assert r.passed
    assert r.isolation == (
        "none: unshare failed (unshare: unshare failed: Operation not permitted); only capabilities dropped (setpriv)"
    )
    caps = dict(line.split(":\t") for line in r.stdout.splitlines() if line.startswith("Cap"))
    assert caps["CapEff"] == caps["CapPrm"] == caps["CapBnd"] == "0000000000000000"


PROTECTED = """\
import sys, time
from harness.common import vault
if sys.argv[1] == "protect":
    assert vault.protect_process()
print("ready", flush=True)
time.sleep(30)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")
@pytest.mark.parametrize("protect", [True, False])
def test_a_non_dumpable_harness_hides_its_environ(protect: bool, tmp_path: Path) -> None:
    """A same-user process without capabilities (like the sandboxed code) cannot read the environ of a
    protected process; the control (unprotected) shows the key."""
    if sandbox.isolation()[1] != sandbox.ISOLATED:
        pytest.skip("setpriv is needed to drop capabilities")
    key = "sk-test-dumpable-" + os.urandom(8).hex()
    env = {**os.environ, "PYTHONPATH": REPO, "DUMPABLE_TEST_API_KEY": key}
    drop = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"]  # both as capability-less
    target = subprocess.Popen(
        [*drop, sys.executable, "-c", PROTECTED, "protect" if protect else "open"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert target.stdout is not None and target.stdout.readline() == "ready\n"
        reader = subprocess.run(
            [
                *drop,
                sys.executable,
                "-c",
                f"import sys\ntry:\n    print(open('/proc/{target.pid}/environ', 'rb').read().decode('latin-1'))\n"
                "except OSError as e:\n    print(type(e).__name__)\n",
            ],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    finally:
        target.kill()
        target.wait()
    if protect:
        assert reader.stdout.strip() == "PermissionError" and key not in reader.stdout
    else:
        assert key in reader.stdout


def test_vault_seals_secrets_and_still_serves_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COUNCIL_VAULT_TEST_API_KEY", "sk-test-vault-123456")
    monkeypatch.setenv("LLM_COUNCIL_ANSWER_MAX_TOKENS", "64")  # not a secret: *_TOKENS
    monkeypatch.setenv("LLM_COUNCIL_API_KEY_ENV", "COUNCIL_VAULT_TEST_API_KEY")  # names a variable: not a secret
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    moved = vault.seal()
    try:
        assert "COUNCIL_VAULT_TEST_API_KEY" in moved and "LLM_COUNCIL_ANSWER_MAX_TOKENS" not in moved
        assert "LLM_COUNCIL_API_KEY_ENV" not in moved and "TOKENIZERS_PARALLELISM" not in moved
        assert all(
            vault.is_secret_name(n)
            for n in (
                "HF_TOKEN",
                "GH_ACCESSTOKEN",
                "LLM_COUNCIL_HASH_SECRET",
                "LLM_COUNCIL_WEBHOOK_SECRET",
                "DB_PASSWORD",
                "x_apikey",
            )
        )
        assert "COUNCIL_VAULT_TEST_API_KEY" not in os.environ
        assert vault.get("COUNCIL_VAULT_TEST_API_KEY") == "sk-test-vault-123456"
        assert vault.redact("key=sk-test-vault-123456.") == "key=[redacted $COUNCIL_VAULT_TEST_API_KEY]."
    finally:
        vault._sealed.pop("COUNCIL_VAULT_TEST_API_KEY", None)
