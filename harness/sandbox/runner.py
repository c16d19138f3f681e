"""The child side of :mod:`harness.sandbox`: run as a script inside the sandbox (standard library only).

It is started as ``python -I -S -c <this source> RECORD_FD MEMORY CPU FSIZE NOFILE NPROC`` in its
working folder (the private ``/tmp``); it never imports the harness. It

1. reads one JSON line from stdin (the run's nonce, the solution and the tests) and closes stdin,
   writes ``solution.py`` and ``tests.py`` into its working folder (for the tracebacks' source
   lines) and sets its resource limits (``RLIMIT_NPROC`` among them);
2. runs ``solution.py`` as the module ``solution`` and then ``tests.py`` (already rewritten by the
   parent: every ``assert`` calls :func:`_compare` or :func:`_truth`) as ``__main__``;
3. writes one JSON line per executed assert on the record pipe ``RECORD_FD``, and after the last test
   an ``end`` line carrying the nonce.

By-value comparison: an assert's operands are converted by :func:`plain` into built-in values
(``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes`` and ``list``/``tuple``/
``dict``/``set``/``frozenset`` of them) with the built-in types' own methods (a subclass is read
as its built-in value, so an overridden ``__eq__``/``__bool__``/``__len__`` is never called), then
compared with the built-in operators; any other object fails the assert. The record holds both
plain values (tagged JSON, :func:`encode`), so the parent compares them again itself. ``is`` and
``is not`` compare identities (which no object can fake), and the parent trusts that result.

The helpers below are bound to the built-ins captured when this script starts, before any answer
code runs; answer code that replaces built-ins afterwards does not change them. Answer code runs in
this same process, though: code written to find these helpers in memory (``gc``, frames) and
rewrite them, or to write forged records on the pipe, is not stopped here (the module docstring of
:mod:`harness.sandbox` lists what is and is not isolated).
"""

from __future__ import annotations

import ast
import builtins
import json
import json.encoder
import os
import signal
import sys
import traceback
import types
from typing import Any

_type, _id, _len, _iter, _isinstance, _repr = type, id, len, iter, isinstance, repr
_zip, _hex, _slice = zip, hex, slice
_BUILTINS = dict(builtins.__dict__)
_int, _float, _str, _bytes, _complex, _bool = int, float, str, bytes, complex, bool
_list, _tuple, _dict, _set, _frozenset = list, tuple, dict, set, frozenset
_write, _dumps = os.write, json.dumps


def _no_default(value: Any) -> Any:
    raise TypeError(f"not JSON: {_type(value).__name__}")


# the C encoder checks types in C, so a replaced ``builtins.isinstance`` cannot break the records
# (the C accelerator is optional and undeclared in typeshed: look it up, None when absent)
_c_encoder = getattr(json.encoder, "c_make_encoder", None)
_encode_line = (
    _c_encoder(None, _no_default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
    if _c_encoder is not None
    else None
)
_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}
#: Deepest nesting of containers :func:`plain` follows.
MAX_DEPTH = 200


class NotPlain(Exception):
    """An operand is not plain data (its type's own comparison would run)."""


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as exact built-in objects, read through the built-in types' methods (see the module docstring)."""
    if depth > MAX_DEPTH:
        raise NotPlain(f"nested more than {MAX_DEPTH} levels deep")
    t = _type(value)
    if value is None or t is _bool:
        return value
    if _isinstance(value, _bool):
        return _bool(_int.__int__(value))
    if _isinstance(value, _int):
        return _int.__int__(value)
    if _isinstance(value, _float):
        return _float.__float__(value)
    if _isinstance(value, _str):
        return _str.__str__(value)
    if _isinstance(value, _bytes):
        return _bytes.__getitem__(value, _slice(None))
    if _isinstance(value, _complex):
        return _complex(_complex.real.__get__(value), _complex.imag.__get__(value))
    if _isinstance(value, _list):
        return [plain(v, depth + 1) for v in _list.copy(value)]
    if _isinstance(value, _tuple):
        return _tuple(plain(v, depth + 1) for v in _tuple.__getitem__(value, _slice(None)))
    if _isinstance(value, _dict):
        return {plain(k, depth + 1): plain(v, depth + 1) for k, v in _dict.items(value)}
    if _isinstance(value, _frozenset):
        return _frozenset(plain(v, depth + 1) for v in _frozenset.__iter__(value))
    if _isinstance(value, _set):
        return {plain(v, depth + 1) for v in _set.__iter__(value)}
    raise NotPlain(f"a {t.__name__} object, not plain data")


def encode(value: Any) -> Any:
    """A plain value as tagged JSON: ``["int", "0x2a"]``, ``["list", [...]]``, ... (exact for floats and big ints)."""
    t = _type(value)
    if value is None:
        return ["none"]
    if t is _bool:
        return ["bool", value]
    if t is _int:
        return ["int", _hex(value)]
    if t is _float:
        return ["float", _float.hex(value)]
    if t is _complex:
        return ["complex", _float.hex(value.real), _float.hex(value.imag)]
    if t is _str:
        return ["str", value]
    if t is _bytes:
        return ["bytes", _bytes.hex(value)]
    if t is _list or t is _tuple or t is _set or t is _frozenset:
        return [t.__name__, [encode(v) for v in value]]
    if t is _dict:
        return ["dict", [[encode(k), encode(v)] for k, v in value.items()]]
    raise NotPlain(f"a {t.__name__} object, not plain data")


COMPARE, TRUTH = "__sandbox_compare__", "__sandbox_truth__"
#: The file name of this script's frames in the child (it is started with ``python -c``).
RUNNER_FILENAME = "<string>"


def _thunk(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.copy_location(ast.Lambda(args=args, body=expr), expr)


class _Asserts(ast.NodeTransformer):
    """Replace each ``assert`` by a call of :data:`COMPARE` or :data:`TRUTH` with its number in ``order``."""

    def __init__(self, order: dict[int, int]) -> None:
        self.order = order

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        index = ast.Constant(self.order[_id(node)])
        self.generic_visit(node)
        msg: ast.expr = _thunk(node.msg) if node.msg is not None else ast.Constant(None)
        test = node.test
        if isinstance(test, ast.Compare):
            ops = ast.Tuple([ast.Constant(_OP_NAMES[_type(op)]) for op in test.ops], ast.Load())
            thunks = ast.Tuple([_thunk(e) for e in (test.left, *test.comparators)], ast.Load())
            call = ast.Call(ast.Name(COMPARE, ast.Load()), [index, ops, thunks, msg], [])
        else:
            call = ast.Call(ast.Name(TRUTH, ast.Load()), [index, _thunk(test), msg], [])
        return ast.copy_location(ast.Expr(ast.copy_location(call, node)), node)


_OP_NAMES: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}


def rewrite_asserts(source: str, filename: str = "tests.py") -> tuple[ast.Module, list[int]]:
    """``source`` with every ``assert`` turned into a by-value check, and the numbers of the top-level ones.

    Asserts are numbered in source order from 0; the top-level ones (directly in the module body)
    must each be recorded as passed for the run to pass. Raises ``SyntaxError`` for source that
    does not parse.
    """
    tree = ast.parse(source, filename)
    asserts = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assert)), key=lambda n: (n.lineno, n.col_offset))
    order = {_id(n): i for i, n in enumerate(asserts)}
    top = [order[_id(n)] for n in tree.body if isinstance(n, ast.Assert)]
    return ast.fix_missing_locations(_Asserts(order).visit(tree)), top


class _Recorder:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def record(self, item: dict[str, Any]) -> None:
        text = "".join(_encode_line(item, 0)) if _encode_line is not None else _dumps(item, ensure_ascii=True)
        data = (text + "\n").encode("ascii")
        while data:
            data = data[_write(self.fd, data) :]


def _message(msg: Any, fallback: str) -> str:
    if msg is None:
        return fallback
    try:
        return _str(msg())
    except BaseException:
        return fallback


def make_checks(recorder: _Recorder) -> tuple[Any, Any]:
    """The two functions the rewritten tests call: ``compare`` and ``truth``."""

    def compare(index: int, ops: tuple[str, ...], thunks: tuple[Any, ...], msg: Any = None) -> None:
        left = thunks[0]()
        for op, thunk in _zip(ops, thunks[1:], strict=True):
            right = thunk()
            if op in ("is", "is not"):
                same = left is right
                ok = same if op == "is" else not same
                recorder.record({"i": index, "op": op, "ok": ok})
            else:
                try:
                    a, b = plain(left), plain(right)
                    ok = _bool(_OPS[op](a, b))
                    item = {"i": index, "op": op, "ok": ok, "left": encode(a), "right": encode(b)}
                except (NotPlain, RecursionError) as exc:
                    item = {"i": index, "op": op, "ok": False, "error": f"cannot compare by value: {exc}"}
                    recorder.record(item)
                    raise AssertionError(_message(msg, f"assert {op}: cannot compare by value: {exc}")) from None
                recorder.record(item)
            if not ok:
                raise AssertionError(_message(msg, f"assert failed: {_short(left)} {op} {_short(right)}"))
            left = right

    def truth(index: int, thunk: Any, msg: Any = None) -> None:
        try:
            value = plain(thunk())
            ok = _bool(value)
            item = {"i": index, "op": "truth", "ok": ok, "value": encode(value)}
        except (NotPlain, RecursionError) as exc:
            recorder.record({"i": index, "op": "truth", "ok": False, "error": f"cannot test by value: {exc}"})
            raise AssertionError(_message(msg, f"assert: cannot test by value: {exc}")) from None
        recorder.record(item)
        if not ok:
            raise AssertionError(_message(msg, "assert failed"))

    return compare, truth


def _short(value: Any) -> str:
    try:
        text = _repr(plain(value))
    except BaseException:
        return f"<{_type(value).__name__} object>"
    return text if _len(text) <= 200 else text[:200] + "..."


def _limit(name: str, value: int, hard: int | None = None) -> None:
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


def _compiled(path: str, source: str, *, checked: bool = False) -> types.CodeType:
    with open(path, "w", encoding="utf-8") as fh:  # on disk for the tracebacks' source lines only
        fh.write(source)
    code: Any = rewrite_asserts(source, path)[0] if checked else source
    return compile(code, path, "exec")


def main() -> None:
    """Run the solution and the rewritten tests; exit 0 only when both ran to the end."""
    job = json.loads(sys.stdin.readline())
    nonce, solution_source, tests_source = job["nonce"], job["solution"], job["tests"]
    sys.stdin.close()
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115
    record_fd, memory, cpu, fsize, nofile, nproc = (int(a) for a in sys.argv[1:7])
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _limit("RLIMIT_CORE", 0)
    _limit("RLIMIT_FSIZE", fsize)
    _limit("RLIMIT_NOFILE", nofile)
    _limit("RLIMIT_NPROC", nproc)
    _limit("RLIMIT_CPU", cpu, cpu + 1)
    _limit("RLIMIT_AS", memory)
    recorder = _Recorder(record_fd)
    compare, truth = make_checks(recorder)
    status = 0
    try:
        # everything the runner needs is prepared before any answer code runs (it may replace built-ins)
        tests_code = _compiled("tests.py", tests_source, checked=True)
        solution_code, tests_file = _compiled("solution.py", solution_source), os.path.abspath("tests.py")
        module = types.ModuleType("solution")
        module.__file__ = os.path.abspath("solution.py")
        sys.modules["solution"] = module
        exec(solution_code, module.__dict__)  # noqa: S102 - this is the sandbox
        tests = dict(module.__dict__)
        tests.update(__name__="__main__", __file__=tests_file)
        tests[COMPARE], tests[TRUTH] = compare, truth
        exec(tests_code, tests)  # noqa: S102
    except SystemExit as exc:
        print(f"sandbox: the code called exit({exc.code!r}) before the tests finished", file=sys.stderr)
        status = 3
    except BaseException as exc:
        builtins.__dict__.update(_BUILTINS)  # the answer may have replaced some: report with the real ones
        try:  # the runner's own frames (the by-value checks) are left out: the test line is what matters
            report = traceback.TracebackException.from_exception(exc)
            report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != RUNNER_FILENAME])
            print("".join(report.format()), end="", file=sys.stderr)
        except BaseException:
            print("sandbox: the code raised an exception that could not be printed", file=sys.stderr)
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    if status == 0:
        recorder.record({"end": nonce})
    os._exit(status)


if __name__ == "__main__":
    main()
