"""Run untrusted Python (model-written code plus a case's tests) in a limited subprocess.

What :func:`run_python` does:

* writes the code and the tests to ``solution.py`` and ``tests.py`` in a fresh temporary directory,
  which is the child's working directory and is deleted afterwards;
* starts ``sys.executable -I -S -B -X utf8`` on a small runner script: ``-I`` ignores ``PYTHON*``
  variables and the user site and does not put the script's or the current directory on
  ``sys.path``; ``-S`` skips ``site``, so no site-packages (and so neither this harness, installed
  in the virtualenv, nor third-party packages) can be imported: **only the standard library**;
* gives the child an environment with only ``PATH`` and ``LANG`` copied (``HOME`` and ``TMPDIR``
  point at the temporary directory), so API keys and other secrets in the harness's environment
  are not visible; the repository path is not passed;
* the runner sets resource limits on itself before it runs any of the code (``RLIMIT_AS`` memory,
  ``RLIMIT_CPU`` CPU seconds, ``RLIMIT_FSIZE`` largest file, ``RLIMIT_CORE`` 0, ``RLIMIT_NOFILE``);
  they are set in the child rather than in a ``preexec_fn``, which Python documents as unsafe
  when the parent has threads;
* executes ``solution.py`` as a module named ``solution`` (so ``if __name__ == "__main__":``
  blocks do not run, and ``from solution import f`` works), then ``tests.py`` as ``__main__``
  in a namespace holding the solution's names; ``exit()`` called by the code counts as a failure;
* starts the child in a new session and kills its whole process group at the wall-clock timeout
  (and after a normal exit, to reap stray children);
* reads stdout and stderr without blocking and keeps only the last ``output_limit`` bytes of each.

It passes only when the child exits with 0 *and* prints a random token that the parent sends on
stdin and the runner prints after the tests, so code that calls ``os._exit(0)`` early fails.

What is **not** isolated — this is a guard against accidents and runaway code, not a security
sandbox against a determined attacker: the child runs as the same user, so it can read and write
any file that user can with an absolute path (only relative paths land in the temporary
directory; ``RLIMIT_FSIZE`` caps the size of each file written); it has the network; there is no
limit on the number of processes (``RLIMIT_NPROC`` counts every process of the user, so a low
value would break unrelated work; a child that starts a new session escapes the group kill); it
could inspect the runner's frames. Run untrusted answers from unknown sources inside a container
or VM as well.
"""

from __future__ import annotations

import math
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.model import Frozen

#: Largest file the child may write, in bytes.
FILE_SIZE_LIMIT = 16 * 1024 * 1024
#: Most open file descriptors in the child.
OPEN_FILES_LIMIT = 256

_RUNNER = r'''
import os, signal, sys

def _limit(name, value, hard=None):
    try:
        import resource
    except ImportError:
        return
    which = getattr(resource, name, None)
    if which is None:
        return
    _, old_hard = resource.getrlimit(which)
    hard = value if hard is None else hard
    if old_hard != resource.RLIM_INFINITY:
        value, hard = min(value, old_hard), min(hard, old_hard)
    try:
        resource.setrlimit(which, (value, hard))
    except (ValueError, OSError):
        pass

_token = sys.stdin.readline().strip()
sys.stdin.close()
sys.stdin = open(os.devnull, encoding="utf-8")
_memory, _cpu, _fsize, _nofile = (int(a) for a in sys.argv[1:5])
if hasattr(signal, "SIGXFSZ"):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
_limit("RLIMIT_CORE", 0)
_limit("RLIMIT_FSIZE", _fsize)
_limit("RLIMIT_NOFILE", _nofile)
_limit("RLIMIT_CPU", _cpu, _cpu + 1)
_limit("RLIMIT_AS", _memory)

import traceback, types

def _run(path, namespace):
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    exec(compile(source, path, "exec"), namespace)

_status = 0
try:
    _module = types.ModuleType("solution")
    _module.__file__ = os.path.abspath("solution.py")
    sys.modules["solution"] = _module
    _run("solution.py", _module.__dict__)
    _tests = dict(_module.__dict__)
    _tests["__name__"] = "__main__"
    _tests["__file__"] = os.path.abspath("tests.py")
    _run("tests.py", _tests)
except SystemExit as exc:
    print("sandbox: the code called exit(%r) before the tests finished" % (exc.code,), file=sys.stderr)
    _status = 3
except BaseException:
    try:
        traceback.print_exc()
    except BaseException:
        print("sandbox: the code raised an exception that could not be printed", file=sys.stderr)
    _status = 1
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BaseException:
    pass
if _status == 0:
    os.write(1, ("\n" + _token + "\n").encode())
os._exit(_status)
'''


class SandboxResult(Frozen):
    """The outcome of one sandboxed run.

    Args:
        passed: the code and the tests ran to the end without an exception, within the limits.
        returncode: the child's exit status (negative: killed by that signal number).
        timed_out: the wall-clock timeout was hit and the process group was killed.
        stdout: the last ``output_limit`` bytes of standard output (decoded, the pass token removed).
        stderr: the last ``output_limit`` bytes of standard error (tracebacks land here).
        duration_s: wall time of the run in seconds.
    """

    passed: bool
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str
    duration_s: float

    def summary(self) -> str:
        """One line: ``passed``, ``timed out ...``, or the exit status with the last line of stderr."""
        if self.passed:
            return "passed"
        if self.timed_out:
            return f"timed out after {self.duration_s:.1f} s; the process group was killed"
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


def _tail(buf: bytes, limit: int, total: int) -> str:
    text = bytes(buf[-limit:]).decode("utf-8", errors="replace")
    return f"[... {total - limit} earlier bytes dropped]\n{text}" if total > limit else text


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_into(fd: int, bufs: dict[int, bytearray], totals: dict[int, int], limit: int) -> bool:
    """Read one chunk from ``fd`` into its bounded buffer; ``False`` at end of file."""
    chunk = os.read(fd, 65536)
    if not chunk:
        return False
    buf = bufs[fd]
    buf += chunk
    totals[fd] += len(chunk)
    if len(buf) > 2 * limit:
        del buf[:-limit]
    return True


def _pump(
    proc: subprocess.Popen[bytes], fds: tuple[int, int], deadline: float, limit: int,
) -> tuple[dict[int, bytearray], dict[int, int], bool]:
    """Read stdout and stderr until the child exits or the deadline passes, keeping bounded tails.

    Returns the buffers, the byte totals and whether the deadline passed. After the child exits,
    what is left in the pipes is read for at most half a second more (a background grandchild may
    hold them open).
    """
    bufs = {fd: bytearray() for fd in fds}
    totals = dict.fromkeys(fds, 0)
    timed_out = False
    with selectors.DefaultSelector() as sel:
        for fd in fds:
            sel.register(fd, selectors.EVENT_READ)
        while proc.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if not sel.get_map():  # both pipes closed but the child runs on
                try:
                    proc.wait(timeout=remaining)
                except subprocess.TimeoutExpired:
                    timed_out = True
                break
            for key, _ in sel.select(timeout=min(remaining, 0.05)):
                if not _read_into(key.fd, bufs, totals, limit):
                    sel.unregister(key.fd)
        _kill_group(proc)
        grace = time.monotonic() + 0.5
        while sel.get_map() and time.monotonic() < grace:
            ready = sel.select(timeout=max(0.0, grace - time.monotonic()))
            if not ready:
                break
            for key, _ in ready:
                if not _read_into(key.fd, bufs, totals, limit):
                    sel.unregister(key.fd)
    return bufs, totals, timed_out


def run_python(
    code: str,
    tests: str,
    timeout_s: float,
    memory_mb: int = 256,
    output_limit: int = 4096,
) -> SandboxResult:
    """Run ``code`` and then ``tests`` in a limited subprocess (see the module docstring).

    Args:
        code: the untrusted Python source (e.g. a model's answer), run as module ``solution``.
        tests: Python source, usually ``assert`` statements, run after ``code`` with its names in scope.
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
    token = secrets.token_hex(16)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="council-sandbox-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        (work / "solution.py").write_text(code, encoding="utf-8")
        (work / "tests.py").write_text(tests, encoding="utf-8")
        (work / "_runner.py").write_text(_RUNNER, encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOME": tmp,
            "TMPDIR": tmp,
        }
        argv = [
            sys.executable, "-I", "-S", "-B", "-X", "utf8", "_runner.py",
            str(memory_mb * 1024 * 1024), str(math.ceil(timeout_s) + 1), str(FILE_SIZE_LIMIT), str(OPEN_FILES_LIMIT),
        ]
        proc = subprocess.Popen(
            argv, cwd=tmp, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, close_fds=True,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
        try:
            try:
                proc.stdin.write((token + "\n").encode())
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            bufs, totals, timed_out = _pump(proc, (out_fd, err_fd), started + timeout_s, output_limit)
            returncode = proc.wait()
        finally:
            _kill_group(proc)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for f in (proc.stdout, proc.stderr):
                if f is not None:
                    f.close()
    duration = time.monotonic() - started
    stdout = _tail(bufs[out_fd], output_limit, totals[out_fd])
    stderr = _tail(bufs[err_fd], output_limit, totals[err_fd])
    marker = "\n" + token + "\n"
    saw_token = token in stdout
    stdout = stdout.replace(marker, "").replace(token, "")
    return SandboxResult(
        passed=saw_token and returncode == 0 and not timed_out,
        returncode=returncode,
        timed_out=timed_out,
        stdout=stdout,
        stderr=stderr,
        duration_s=round(duration, 3),
    )
