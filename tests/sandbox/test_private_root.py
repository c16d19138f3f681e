"""Issue 25 item 1: the sandbox's private file system and process limit, through :func:`run_python`
with real namespaces (skipped where the machine offers none), and redaction of the key's encodings.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

import harness
from harness import sandbox
from harness.common import vault
from harness.sandbox import PROCESS_LIMIT, filesystem, run_python

REPO = str(Path(harness.__file__).resolve().parents[1])
needs_private_root = pytest.mark.skipif(
    sandbox.isolation()[1] != sandbox.ISOLATED, reason=f"no private file system here: {sandbox.isolation()[1]}"
)

SEEN = """\
import os, sys
def exists(p):
    return os.path.lexists(p)
print(sorted(os.listdir('/')))
print(sorted(os.listdir('/tmp')))
print(sorted(os.listdir('/dev')))
print(os.getcwd(), os.environ['HOME'])
links = set()
for fd in set(os.listdir('/proc/self/fd')) - {'0', '1', '2', sys.argv[1]}:
    try:
        links.add(os.readlink('/proc/self/fd/' + fd))
    except OSError:  # the listing's own descriptor, closed by now
        pass
print(sorted(links))
"""


@needs_private_root
def test_the_child_sees_only_the_system_the_interpreter_and_its_own_tmp(tmp_path: Path) -> None:
    exe, prefix = filesystem.interpreter()
    venv, home = sys.prefix, os.path.expanduser("~")
    (tmp_path / "secret.txt").write_text("x")
    hidden = [REPO, venv, str(tmp_path), os.getcwd(), "/etc/passwd", "/var", "/sys", "/home", "/work"]
    if prefix.startswith(home + "/"):  # the interpreter lives in the home folder: only the path to it is there
        home_check = f"assert os.listdir({home!r}) == [{Path(prefix).relative_to(home).parts[0]!r}]\n"
    else:
        home_check = f"assert not exists({home!r}) or {home!r} == '/'\n"
    tests = (
        f"for p in {hidden!r}:\n    assert not exists(p), p\n"
        + home_check
        + f"assert exists({exe!r}) and sys.prefix == {prefix!r}\n"
        "import json, sqlite3, decimal\n"
        "assert not [p for p in sys.path if 'site-packages' in p or 'dist-packages' in p]\n"
    )
    r = run_python(SEEN, tests, 10)
    assert r.passed, r.summary() + r.stderr
    top, in_tmp, dev, where, fds = r.stdout.splitlines()
    expected_top = {"dev", "proc", "tmp", "usr", ".old"} | {d for d in filesystem.TOP_LEVEL if os.path.lexists(f"/{d}")}
    if not prefix.startswith("/usr/"):
        expected_top.add(Path(prefix).parts[1])
    assert set(eval(top)) == expected_top  # noqa: S307 - our own printed list
    assert eval(in_tmp) == ["solution.py", "tests.py"]  # noqa: S307
    assert eval(dev) == ["null", "urandom", "zero"]  # noqa: S307
    assert where == "/tmp /tmp"
    assert eval(fds) == ["/dev/null"]  # noqa: S307 - besides the std streams and the record pipe: no descriptor


@needs_private_root
def test_the_root_is_read_only_and_tmp_is_bounded() -> None:
    """Writes outside /tmp fail (EROFS); /tmp holds at most TMP_SIZE bytes (ENOSPC). The names are unique and
    removed afterwards, should a broken sandbox let the writes through to the host."""
    tag = uuid.uuid4().hex
    stdlib = os.path.dirname(os.__file__)
    paths = [f"/x-{tag}", f"/usr/x-{tag}", f"/dev/x-{tag}", f"{stdlib}/x-{tag}"]
    code = (
        f"import os, errno\nout = []\nfor p in {paths!r}:\n"
        "    try:\n        open(p, 'w')\n        out.append('wrote ' + p)\n"
        "    except OSError as e:\n        out.append(errno.errorcode[e.errno])\n"
        f"try:\n    for i in range(8):\n        open(f'/tmp/big{{i}}-{tag}', 'wb').write(b'0' * 15 * 1024 * 1024)\n"
        "except OSError as e:\n    out.append(errno.errorcode[e.errno])\nprint(out)\n"
    )
    try:
        r = run_python(code, "", 10)
    finally:
        for p in [*paths, *(f"/tmp/big{i}-{tag}" for i in range(8))]:
            Path(p).unlink(missing_ok=True)
    assert r.passed, r.stderr
    assert r.stdout.strip() == str(["EROFS", "EROFS", "EROFS", "EROFS", "ENOSPC"])
    assert filesystem.TMP_SIZE < 8 * 15 * 1024 * 1024


@needs_private_root
def test_big_files_leave_nothing_on_disk(tmp_path: Path) -> None:
    """(g) Files written to /tmp, /var/tmp, the working folder and the caller's folder are not on the host after."""
    tag = uuid.uuid4().hex
    targets = [f"/tmp/big-{tag}", f"/var/tmp/big-{tag}", f"big-{tag}", str(tmp_path / f"big-{tag}")]
    code = (
        f"out = []\nfor p in {targets!r}:\n    try:\n        open(p, 'wb').write(b'0' * (10 * 1024 * 1024))\n"
        "        out.append('wrote')\n    except OSError as e:\n        out.append(type(e).__name__)\nprint(out)\n"
    )
    try:
        r = run_python(code, "", 10)
        left = [p for p in targets if Path(p).exists()]
    finally:
        for p in targets:
            Path(p).unlink(missing_ok=True)
    assert r.passed, r.stderr
    assert r.stdout.strip() == str(["wrote", "FileNotFoundError", "wrote", "FileNotFoundError"])
    assert left == []
    assert not list(Path("/tmp").glob(f"*/big-{tag}"))


@needs_private_root
def test_a_case_cannot_write_into_another_cases_folder() -> None:
    """(e) While one case runs, another looks for every sandbox folder it can reach (``council-sandbox-*``
    in the temporary folders, the sandbox's own name for them) and writes its tests.py there."""
    results = {}
    waiter = "import os, time\ntime.sleep(2.5)\nprint(sorted(os.listdir('.')))\n"
    racer = (
        "import glob, os\nhit = []\n"
        "for d in glob.glob('/tmp/council-sandbox-*') + glob.glob('/var/tmp/council-sandbox-*'):\n"
        "    if os.path.isdir(d) and os.path.abspath(d) != os.getcwd():\n"
        "        try:\n            open(os.path.join(d, 'tests.py'), 'w').write('assert True\\n')\n"
        "            hit.append(d)\n        except OSError:\n            pass\nprint(hit)\n"
    )

    def run(name: str, code: str) -> None:
        results[name] = run_python(code, "assert True\n", 10)

    first = threading.Thread(target=run, args=("waiter", waiter))
    first.start()
    time.sleep(1.0)
    run("racer", racer)
    first.join()
    assert results["racer"].passed and results["racer"].stdout.strip() == "[]"
    assert results["waiter"].stdout.strip() == "['solution.py', 'tests.py']"


FORK_BOMB = """\
import os, time
children = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    children += 1
print(children)
"""


@needs_private_root
def test_a_fork_bomb_stops_at_the_process_limit() -> None:
    """(f) RLIMIT_NPROC holds in the child's user namespace, also when the harness runs as root."""
    r = run_python(FORK_BOMB, "", 10)
    assert r.passed, r.stderr
    assert 0 < int(r.stdout) < PROCESS_LIMIT


def test_redaction_covers_the_common_encodings() -> None:
    key = "sk-test-" + uuid.uuid4().hex + "Zz"
    raw = key.encode()
    forms = [
        key,
        key[::-1],
        raw.hex(),
        raw.hex().upper(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        quote(key, safe=""),
        "".join(f"%{b:02X}" for b in raw),
        "".join(f"%{b:02x}" for b in raw),
    ]
    forms += [base64.b64encode(p.encode() + raw + b"tail").decode() for p in ("a", "ab", "abc")]
    for form in forms:
        text = vault.redact(f"before {form} after", {key: "THE_API_KEY"})
        assert "[redacted $THE_API_KEY]" in text, form
        assert form not in text
    assert vault.redact("nothing secret here", {key: "THE_API_KEY"}) == "nothing secret here"


def test_the_sandbox_redacts_an_encoded_key_it_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-enc-" + os.urandom(10).hex()
    monkeypatch.setenv("COUNCIL_SANDBOX_ENCODED_API_KEY", key)
    code = (
        f"import base64, urllib.parse\nk = {key!r}\n"
        "print(base64.b64encode(k.encode()).decode(), k.encode().hex(), k[::-1], urllib.parse.quote(k, safe=''))\n"
    )
    r = run_python(code, "", 10)
    assert r.stdout.count("[redacted $COUNCIL_SANDBOX_ENCODED_API_KEY]") == 4
    raw = key.encode()
    for form in (key, base64.b64encode(raw).decode()[:-4], raw.hex(), key[::-1], key[4:-4]):
        assert form not in r.stdout


def test_without_the_private_root_the_result_says_partial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Namespaces work but the root cannot be built (here: no ``mount`` on PATH): the code still runs in the
    namespaces, and the isolation (which the correctness detail repeats) says what is missing."""
    if sandbox.isolation()[1] != sandbox.ISOLATED:
        pytest.skip("needs a machine where the full isolation works")
    for tool in ("unshare", "setpriv", "true"):
        found = shutil.which(tool)
        assert found is not None
        (tmp_path / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(tmp_path))
    r = run_python("import os\nprint(os.path.exists(os.getcwd()))\n", "", 10)
    assert r.passed, r.stderr
    assert r.isolation.startswith("partial: no private file system (")
    assert r.isolation.endswith("; " + sandbox.NAMESPACES_ONLY)
    assert "mount" in r.isolation and r.stdout == "True\n"


NON_ROOT_PROBE = """\
import errno, os, resource, time
pids = sorted(p for p in os.listdir('/proc') if p.isdigit())
print(os.getuid(), sorted(os.listdir('/')), sorted(os.listdir('/tmp')), pids)
try:
    open('/x-{tag}', 'w')
    print('wrote')
except OSError as e:
    print(errno.errorcode[e.errno])
resource.setrlimit(resource.RLIMIT_NPROC, (5, 5))
n = 0
for _ in range(50):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(1)
        os._exit(0)
    n += 1
print(n)
"""


def test_the_private_root_for_a_non_root_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chain a non-root harness gets (one user namespace, the root built inside it), run as ``nobody``
    with the system's interpreter: the same root, read-only, and RLIMIT_NPROC holds."""
    system_python = os.path.realpath("/usr/bin/python3")
    if os.geteuid() != 0 or not os.path.exists(system_python) or sandbox.isolation()[1] != sandbox.ISOLATED:
        pytest.skip("needs root (to become nobody), /usr/bin/python3 and the full isolation")
    monkeypatch.setattr(filesystem, "interpreter", lambda: (system_python, "/usr"))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    unshare, setpriv = shutil.which("unshare"), shutil.which("setpriv")
    assert unshare is not None and setpriv is not None
    prefix, why = filesystem.private_root(unshare, setpriv, sandbox.NAMESPACES_PRIVATE_ROOT[1:])
    assert why == "" and prefix[:3] == (unshare, "--user", "--map-root-user")
    tag = uuid.uuid4().hex
    nobody = [setpriv, f"--reuid={filesystem.NOBODY}", f"--regid={filesystem.NOBODY}", "--clear-groups", "--"]
    try:
        done = subprocess.run(
            [
                *nobody,
                *prefix,
                setpriv,
                *sandbox.DROP_PRIVILEGES[1:],
                system_python,
                "-I",
                "-S",
                "-c",
                NON_ROOT_PROBE.replace("{tag}", tag),
            ],
            capture_output=True,
            text=True,
            cwd="/",
            env={"PATH": os.environ["PATH"]},
            timeout=60,
        )
    finally:
        Path(f"/x-{tag}").unlink(missing_ok=True)
    assert done.returncode == 0, done.stderr
    ident, erofs, forks = done.stdout.splitlines()[0], done.stdout.splitlines()[1], done.stdout.splitlines()[2]
    uid, rest = ident.split(" ", 1)
    assert uid == "0" and "'usr'" in rest and "'tmp'" in rest and "'home'" not in rest and "'etc'" not in rest
    assert rest.endswith("[] ['1']")  # an empty /tmp; only itself in /proc
    assert erofs == "EROFS"
    assert 0 < int(forks) < 5
