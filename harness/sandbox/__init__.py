"""Run untrusted Python (model-written code plus a case's tests) in an isolated, limited subprocess.

What :func:`run_python` does:

* **isolation** (:func:`isolation`, probed once per ``PATH``), one of three levels:

  - :data:`ISOLATED` (where ``unshare``, ``setpriv`` and ``mount`` of util-linux work): a **private
    file system** (:mod:`harness.sandbox.filesystem`): a read-only root holding only ``/usr``, the
    top-level ``/bin``, ``/sbin``, ``/lib*``, the base interpreter's prefix (its ``site-packages``
    covered) and ``/dev/null``, ``/dev/zero``, ``/dev/urandom``, plus an empty private ``/tmp``
    (``tmpfs`` of :data:`harness.sandbox.filesystem.TMP_SIZE` bytes, in memory) that is the
    working directory: no home folder, run folder, record/replay cache, checkout, virtual
    environment, ``/etc`` or host ``/tmp``; in new user, PID, network, IPC, UTS and mount
    namespaces with a fresh ``/proc``; every capability dropped (``setpriv --bounding-set=-all
    --inh-caps=-all --no-new-privs``); and a **process limit** (``RLIMIT_NPROC`` =
    :data:`PROCESS_LIMIT`, counted in the child's own user namespace; when the harness is root
    the child is entered as ``nobody`` outside the namespace, since the kernel does not enforce
    ``RLIMIT_NPROC`` for the real root). It sees no other process, has no network at all (not
    even loopback), and whatever it writes disappears with its mount namespace;
  - ``partial: <why>; ...`` (the namespaces work, the root cannot be built): the same namespaces
    without the private file system: the file system is visible with the permissions of the
    harness user and the child works in a fresh host folder (mode 700), deleted afterwards;
  - ``none: <why>`` (no namespaces): capabilities dropped when ``setpriv`` works, nothing else.

  :attr:`SandboxResult.isolation` says which, and the correctness detail repeats anything short
  of :data:`ISOLATED`;
* the harness process itself is made non-dumpable first (:func:`harness.common.vault.protect_process`),
  so a same-user process without ``CAP_SYS_PTRACE`` cannot read its ``/proc/<pid>/environ``;
* starts the base interpreter (not a virtual environment's link to it) as ``python -I -S -B -X
  utf8 -c <runner>``: ``-I`` ignores ``PYTHON*`` variables and the user site, ``-S`` skips
  ``site``: **only the standard library**. The run's nonce, the code and the tests go to the child
  on stdin (one JSON line); nothing of the harness is written where the child runs;
* gives the child an environment with only ``PATH`` and ``LANG`` copied (``HOME`` and ``TMPDIR``
  point at its working directory): no API key or other secret;
* the runner sets resource limits on itself before it runs any of the code (``RLIMIT_AS`` memory,
  ``RLIMIT_CPU`` CPU seconds, ``RLIMIT_FSIZE`` largest file, ``RLIMIT_CORE`` 0, ``RLIMIT_NOFILE``,
  ``RLIMIT_NPROC``);
* executes ``solution.py`` as a module named ``solution`` (so ``if __name__ == "__main__":`` blocks
  do not run, and ``from solution import f`` works), then ``tests.py`` as ``__main__`` in a
  namespace holding the solution's names; ``exit()`` called by the code counts as a failure;
* **by-value asserts**: every ``assert`` of the tests is rewritten (compiled before any answer code
  runs) to compare *plain values* (see :mod:`harness.sandbox.runner`): an object whose ``__eq__``
  always returns ``True`` fails instead of passing. The child writes one record per executed
  assert on a private pipe, and the parent **decodes both values and compares them again itself**;
* starts the child in a new session and kills its whole process group at the wall-clock timeout
  (and after a normal exit, to reap stray children; in a PID namespace they die with the runner);
* reads stdout and stderr without blocking and keeps only the last ``output_limit`` bytes of each,
  then replaces every secret value the harness knows, in each of its common encodings, by
  ``[redacted $NAME]`` (:func:`harness.common.vault.redact`). The harness reads nothing else the
  child could have written: the record pipe, stdout and stderr are all.

It passes only when the child exits with 0, the record pipe ends with the run's nonce (sent on
stdin), every record the parent re-checked passed, and every top-level ``assert`` of the tests
has a passing record: code that calls ``os._exit(0)`` early, or prints the nonce, fails.

What is **not** isolated, even at :data:`ISOLATED`: the system's programs and libraries under
``/usr`` (and ``/bin``, ``/lib*``) and the interpreter's standard library are readable; the child
shares the machine's kernel, CPU and memory (within its limits); the asserts run in the same
process as the answer, so code written deliberately to find the runner's helpers in memory
(``gc``, frames) and forge records with the right values is not stopped; redaction finds only the
encodings :func:`harness.common.vault.encodings` lists (the key is not reachable in the first
place). At ``partial`` the file system is visible; at ``none`` also the network and other
processes of the user. Run untrusted answers from unknown sources inside a container or VM as well.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import operator
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from harness.common import vault
from harness.common.model import Frozen
from harness.sandbox import filesystem
from harness.sandbox import runner as sandbox_runner

#: Largest file the child may write, in bytes.
FILE_SIZE_LIMIT = 16 * 1024 * 1024
#: Most open file descriptors in the child.
OPEN_FILES_LIMIT = 256
#: Most processes in the child's user namespace (``RLIMIT_NPROC``; the runner and ``unshare`` count).
PROCESS_LIMIT = 32
#: Longest single assert record accepted from the child, in bytes (bigger compared values fail).
RECORD_LIMIT = 8 * 1024 * 1024
#: The namespaces and privilege drop put in front of the child's command line (without a private root).
NAMESPACES = (
    "unshare",
    "--user",
    "--map-root-user",
    "--pid",
    "--fork",
    "--kill-child",
    "--net",
    "--ipc",
    "--uts",
    "--mount-proc",
    "--",
)
#: The same namespaces when the private root (:mod:`harness.sandbox.filesystem`) mounts ``/proc`` itself.
NAMESPACES_PRIVATE_ROOT = (
    "unshare",
    "--user",
    "--map-root-user",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount",
    "--net",
    "--ipc",
    "--uts",
    "--",
)
DROP_PRIVILEGES = ("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--")
#: The description of a fully isolated child.
ISOLATED = (
    "private file system (read-only root with /usr and the interpreter, empty /tmp); "
    "user, pid, network, ipc, uts and mount namespaces; no capabilities; process limit"
)
#: What a child gets when the namespaces work but the private root cannot be built (the text follows
#: ``partial: <why>; ``).
NAMESPACES_ONLY = "user, pid, network, ipc, uts and mount namespaces; no capabilities; the file system is visible"


def _works(prefix: tuple[str, ...], path: str, command: tuple[str, ...] = ("true",)) -> str:
    """Empty when ``prefix command`` runs; else why not."""
    try:
        done = subprocess.run(
            [*prefix, *command],
            capture_output=True,
            text=True,
            timeout=10,
            env={"PATH": path},
            check=False,
            cwd="/",
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode != 0:
        return " ".join(done.stderr.split())[:200] or f"exit code {done.returncode}"
    return ""


@functools.lru_cache(maxsize=8)
def _probe(path: str) -> tuple[tuple[str, ...], str]:
    unshare, setpriv = shutil.which("unshare", path=path), shutil.which("setpriv", path=path)
    if unshare is None or setpriv is None:
        return (), "none: unshare/setpriv (util-linux) not found on PATH"
    drop = (setpriv, *DROP_PRIVILEGES[1:])
    root, why_root = filesystem.private_root(unshare, setpriv, NAMESPACES_PRIVATE_ROOT[1:])
    if root:
        why_root = _works((*root, *drop), path, (filesystem.interpreter()[0], "-I", "-S", "-c", ""))
        if not why_root:
            return (*root, *drop), ISOLATED
    why = _works((unshare, *NAMESPACES[1:], *drop), path)
    if not why:
        return (unshare, *NAMESPACES[1:], *drop), f"partial: no private file system ({why_root}); {NAMESPACES_ONLY}"
    if not _works(drop, path):  # no namespaces, but the child still holds no capability
        return drop, f"none: unshare failed ({why}); only capabilities dropped (setpriv)"
    return (), f"none: unshare failed ({why}); user namespaces may be disabled"


def isolation() -> tuple[tuple[str, ...], str]:
    """The command prefix that isolates the child, and its description (:data:`ISOLATED`;
    ``"partial: <why>; ..."`` or ``"none: <why>"`` when less is available).

    Probed once per ``PATH`` by running the interpreter (or ``true``) through it.
    """
    return _probe(os.environ.get("PATH", os.defpath))


class SandboxResult(Frozen):
    """The outcome of one sandboxed run.

    Args:
        passed: the code and the tests ran to the end, every assert passed when the parent compared
            its values again, within the limits.
        returncode: the child's exit status (negative: killed by that signal number).
        timed_out: the wall-clock timeout was hit and the process group was killed.
        stdout: the last ``output_limit`` bytes of standard output (decoded, secrets redacted).
        stderr: the last ``output_limit`` bytes of standard error (tracebacks land here; secrets redacted).
        duration_s: wall time of the run in seconds.
        isolation: what isolated the child (:func:`isolation`); ``"none: <why>"`` when nothing did.
        asserts_checked: how many assert records the parent compared by value.
        problem: why a run that exited with 0 still did not pass (missing or forged records).
    """

    passed: bool
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str
    duration_s: float
    isolation: str = ""
    asserts_checked: int = 0
    problem: str = ""

    def summary(self) -> str:
        """One line: ``passed``, ``timed out ...``, or the exit status with the last line of stderr."""
        if self.passed:
            return "passed"
        if self.timed_out:
            return f"timed out after {self.duration_s:.1f} s; the process group was killed"
        if self.returncode == 0 and self.problem:
            return self.problem
        lines = self.stderr.splitlines()
        last = next((ln.strip() for ln in reversed(lines) if ln.strip()), "")
        frames = [i for i, ln in enumerate(lines) if ln.startswith('  File "')]
        if frames and frames[-1] + 1 < len(lines) and lines[frames[-1] + 1].startswith("    "):
            where = lines[frames[-1]].strip().replace('File "', "").replace('", line', " line")
            last += f" (at {where}: {lines[frames[-1] + 1].strip()})"
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            why = {"SIGXCPU": " (CPU time limit)", "SIGKILL": " (killed)"}.get(name, "")
            status = f"killed by {name}{why}"
        elif self.returncode == 0:
            status = "exited with 0 before the tests finished"
        else:
            status = f"exit code {self.returncode}"
        return f"{status}: {last}" if last else status


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


def decode(item: Any) -> Any:
    """A value encoded by :func:`harness.sandbox.runner.encode`; ``ValueError`` for anything else."""
    if not isinstance(item, list) or not item or not isinstance(item[0], str):
        raise ValueError("not a tagged value")
    tag, rest = item[0], item[1:]
    if tag == "none" and not rest:
        return None
    if len(rest) == 1:
        (v,) = rest
        if tag == "bool" and isinstance(v, bool):
            return v
        if tag == "int" and isinstance(v, str):
            return int(v, 16)
        if tag == "float" and isinstance(v, str):
            return float.fromhex(v)
        if tag == "str" and isinstance(v, str):
            return v
        if tag == "bytes" and isinstance(v, str):
            return bytes.fromhex(v)
        if tag in ("list", "tuple", "set", "frozenset") and isinstance(v, list):
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[tag](decode(x) for x in v)
        if tag == "dict" and isinstance(v, list):
            pairs = [(decode(p[0]), decode(p[1])) for p in v if isinstance(p, list) and len(p) == 2]
            if len(pairs) != len(v):
                raise ValueError("bad dict item")
            return dict(pairs)
    if tag == "complex" and len(rest) == 2 and all(isinstance(x, str) for x in rest):
        return complex(float.fromhex(rest[0]), float.fromhex(rest[1]))
    raise ValueError(f"unknown tagged value {tag!r}")


class _Records:
    """The parent's check of the child's assert records (one JSON line each), read as they arrive."""

    def __init__(self, nonce: str, required: list[int]) -> None:
        self.nonce, self.required = nonce, set(required)
        self.buf = bytearray()
        self.passed: set[int] = set()
        self.checked = 0
        self.ended = False
        self.problem = ""
        self.failure = ""

    def feed(self, chunk: bytes) -> None:
        self.buf += chunk
        while True:
            cut = self.buf.find(b"\n")
            if cut < 0:
                break
            line = bytes(self.buf[:cut])
            del self.buf[: cut + 1]
            self._line(line)
        if len(self.buf) > RECORD_LIMIT:
            self._fail(f"an assert record is longer than {RECORD_LIMIT} bytes (the compared values are too big)")
            self.buf.clear()

    def _fail(self, why: str) -> None:
        self.problem = self.problem or why

    def _line(self, raw: bytes) -> None:
        if self.problem:
            return
        if self.ended:
            return self._fail("assert records after the end of the tests")
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            return self._fail("an unreadable assert record")
        if not isinstance(item, dict):
            return self._fail("an unreadable assert record")
        if "end" in item:
            if item["end"] != self.nonce:
                return self._fail("the end record does not carry this run's nonce")
            self.ended = True
            return None
        index, op, claimed = item.get("i"), item.get("op"), item.get("ok")
        if not isinstance(index, int) or not isinstance(claimed, bool):
            return self._fail("an unreadable assert record")
        try:
            if "error" in item:
                ok = False
            elif op in ("is", "is not"):
                ok = claimed  # identity cannot be faked by an object; the child's answer is taken
            elif op == "truth":
                ok = bool(decode(item["value"]))
            elif op in _OPS:
                ok = bool(_OPS[op](decode(item["left"]), decode(item["right"])))
            else:
                return self._fail(f"an assert record with an unknown operator {op!r}")
        except (KeyError, ValueError, TypeError, RecursionError, OverflowError):
            return self._fail(f"the record of assert #{index + 1} does not hold readable values")
        if ok != claimed:
            return self._fail(f"the record of assert #{index + 1} claims {claimed} but its values compare {ok}")
        self.checked += 1
        if ok:
            self.passed.add(index)
        elif not self.failure:
            self.failure = f"assert #{index + 1} failed"
        return None

    def verdict(self) -> str:
        """Empty when every check holds; else why the run does not pass."""
        if self.problem:
            return self.problem
        if self.failure:
            return self.failure
        if not self.ended:
            return "exited with 0 before the tests finished (no end record)"
        missing = sorted(self.required - self.passed)
        if missing:
            return f"exited with 0 but top-level assert #{missing[0] + 1} never reported a pass"
        return ""


def _tail(buf: bytes | bytearray, limit: int, total: int) -> str:
    text = bytes(buf[-limit:]).decode("utf-8", errors="replace")
    return f"[... {total - limit} earlier bytes dropped]\n{text}" if total > limit else text


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Streams:
    """Bounded tails of stdout/stderr plus the record pipe, read without blocking."""

    def __init__(self, fds: tuple[int, int], record_fd: int, records: _Records, limit: int) -> None:
        self.bufs = {fd: bytearray() for fd in fds}
        self.totals = dict.fromkeys(fds, 0)
        self.record_fd, self.records, self.limit = record_fd, records, limit

    def read(self, fd: int) -> bool:
        """Read one chunk from ``fd``; ``False`` at end of file."""
        chunk = os.read(fd, 65536)
        if not chunk:
            return False
        if fd == self.record_fd:
            self.records.feed(chunk)
            return True
        buf = self.bufs[fd]
        buf += chunk
        self.totals[fd] += len(chunk)
        if len(buf) > 2 * self.limit:
            del buf[: -self.limit]
        return True


def _pump(proc: subprocess.Popen[bytes], streams: _Streams, deadline: float) -> bool:
    """Read every stream until the child exits or the deadline passes; returns whether the deadline passed.

    After the child exits, what is left in the pipes is read for at most half a second more (a
    background grandchild may hold them open).
    """
    timed_out = False
    with selectors.DefaultSelector() as sel:
        for fd in (*streams.bufs, streams.record_fd):
            sel.register(fd, selectors.EVENT_READ)
        while proc.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if not sel.get_map():  # every pipe closed but the child runs on
                try:
                    proc.wait(timeout=remaining)
                except subprocess.TimeoutExpired:
                    timed_out = True
                break
            for key, _ in sel.select(timeout=min(remaining, 0.05)):
                if not streams.read(key.fd):
                    sel.unregister(key.fd)
        _kill_group(proc)
        grace = time.monotonic() + 0.5
        while sel.get_map() and time.monotonic() < grace:
            ready = sel.select(timeout=max(0.0, grace - time.monotonic()))
            if not ready:
                break
            for key, _ in ready:
                if not streams.read(key.fd):
                    sel.unregister(key.fd)
    return timed_out


def _feed(stdin: IO[bytes], payload: bytes) -> None:
    """Write the run's nonce, code and tests to the child (a thread: a child that never reads cannot block us)."""
    try:
        stdin.write(payload)
        stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


#: The child's program, passed with ``-c`` (nothing of the harness is readable in the private root).
_RUNNER_SOURCE = Path(sandbox_runner.__file__).read_text(encoding="utf-8")


def run_python(
    code: str,
    tests: str,
    timeout_s: float,
    memory_mb: int = 256,
    output_limit: int = 4096,
) -> SandboxResult:
    """Run ``code`` and then ``tests`` in an isolated, limited subprocess (see the module docstring).

    Args:
        code: the untrusted Python source (e.g. a model's answer), run as module ``solution``.
        tests: Python source, usually ``assert`` statements, run after ``code`` with its names in
            scope; each ``assert`` compares plain values (:mod:`harness.sandbox.runner`).
        timeout_s: wall-clock limit in seconds for the whole child (start-up included); the CPU
            limit is ``ceil(timeout_s) + 1`` seconds.
        memory_mb: address-space limit (``RLIMIT_AS``) in MiB; allocations beyond it raise
            ``MemoryError`` in the child.
        output_limit: how many trailing bytes of stdout and of stderr to keep.

    Returns:
        A :class:`SandboxResult`; this function does not raise for anything the code does.
    """
    if timeout_s <= 0:
        raise ValueError("timeout_s must be positive")
    vault.protect_process()
    prefix, isolated = isolation()
    try:
        required = sandbox_runner.rewrite_asserts(tests)[1]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        required = []  # the child reports the error with its line
    nonce = secrets.token_hex(16)
    records = _Records(nonce, required)
    payload = (json.dumps({"nonce": nonce, "solution": code, "tests": tests}, ensure_ascii=True) + "\n").encode()
    started = time.monotonic()
    private = isolated == ISOLATED
    with contextlib.ExitStack() as stack:
        # with the private root the child's working folder is its own /tmp (memory, gone with its namespace);
        # without it, a fresh host folder readable only by this user, deleted afterwards
        work = (
            "/tmp"
            if private
            else stack.enter_context(tempfile.TemporaryDirectory(prefix="council-sandbox-", ignore_cleanup_errors=True))
        )
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOME": work,
            "TMPDIR": work,
        }
        read_fd, write_fd = os.pipe()
        argv = [
            *prefix,
            filesystem.interpreter()[0],
            "-I",
            "-S",
            "-B",
            "-X",
            "utf8",
            "-c",
            _RUNNER_SOURCE,
            str(write_fd),
            str(memory_mb * 1024 * 1024),
            str(math.ceil(timeout_s) + 1),
            str(FILE_SIZE_LIMIT),
            str(OPEN_FILES_LIMIT),
            str(PROCESS_LIMIT),
        ]
        try:
            proc = subprocess.Popen(
                argv,
                cwd="/" if private else work,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                pass_fds=(write_fd,),
            )
        finally:
            os.close(write_fd)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
        streams = _Streams((out_fd, err_fd), read_fd, records, output_limit)
        feeder = threading.Thread(target=_feed, args=(proc.stdin, payload), daemon=True)
        try:
            feeder.start()
            timed_out = _pump(proc, streams, started + timeout_s)
            returncode = proc.wait()
        finally:
            _kill_group(proc)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            feeder.join(timeout=1)
            for f in (proc.stdout, proc.stderr):
                if f is not None:
                    f.close()
            os.close(read_fd)
    duration = time.monotonic() - started
    known = vault.known_secrets()
    stdout = vault.redact(_tail(streams.bufs[out_fd], output_limit, streams.totals[out_fd]), known)
    stderr = vault.redact(_tail(streams.bufs[err_fd], output_limit, streams.totals[err_fd]), known)
    problem = records.verdict() if returncode == 0 and not timed_out else ""
    return SandboxResult(
        passed=returncode == 0 and not timed_out and not records.verdict(),
        returncode=returncode,
        timed_out=timed_out,
        stdout=stdout.replace(nonce, "[nonce]"),
        stderr=stderr.replace(nonce, "[nonce]"),
        duration_s=round(duration, 3),
        isolation=isolated,
        asserts_checked=records.checked,
        problem=problem,
    )
