"""Reading the Python code of an answer: :func:`extract_code` and :func:`code_blocks` (the rules and
their precedence are defined in :mod:`harness.metrics.extraction`'s docstring, "Code")."""

from __future__ import annotations

import ast
import re
import textwrap

from harness.metrics.extraction_base import Extraction, cap_text, extracted

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>```+|~~~+)[ \t]*(?P<lang>[\w+#.-]*)[^\n]*\n(?P<code>.*?)"
    r"(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
_FENCE_LINE = re.compile(r"^[ \t]*(?:```+|~~~+)[\w+#.-]*[ \t]*$")
_CODE_START = re.compile(r"^(?:async\s+def|def|class|import|from\s+[\w.]+\s+import|@)\b")
_PYTHON_LANGS = {"python", "py", "python3", "py3"}
#: The most trailing lines :func:`extract_code` drops while looking for code that parses.
TRIM_LINES = 40


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines(code: str, name: str, tree: ast.Module | None = None) -> bool:
    tree = tree or _parse(code)
    if tree is None:
        return bool(re.search(r"^\s*(?:async\s+)?def\s+" + re.escape(name) + r"\s*\(", code, re.MULTILINE))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False


def code_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced code blocks of ``text`` as ``(language, code)``; an unclosed fence runs to the end."""
    return [(m["lang"].lower(), m["code"]) for m in _FENCE.finditer(text)]


def _dedent_indented_blocks(lines: list[str]) -> list[str]:
    """Markdown's indented code blocks (4 spaces or a tab after a blank line) moved to column 0."""
    out = list(lines)
    i = 0
    while i < len(out):
        if (
            out[i].startswith(("    ", "\t"))
            and (i == 0 or not out[i - 1].strip())
            and _CODE_START.match(out[i].lstrip())
        ):
            j = i
            while j < len(out) and (not out[j].strip() or out[j].startswith(("    ", "\t"))):
                j += 1
            block = textwrap.dedent("\n".join(out[i:j])).split("\n")
            out[i:j] = block
            i += len(block)
        else:
            i += 1
    return out


_STATEMENT_LINE = re.compile(r"^[A-Za-z_][\w.]*\s*(?:[-+*/]?=|\(|\[)|^(?:return|if|for|while|try|with|print)\b")


def _unfenced(text: str, function: str) -> str | None:
    """The last stretch of unfenced code in ``text`` that parses and defines ``function``.

    A stretch starts at a line opening with ``def``/``class``/``import``/``from … import``/``@``
    that follows prose (or starts the text); fence-only lines are dropped; trailing prose is cut
    line by line (at most :data:`TRIM_LINES`) until the stretch parses.
    """
    lines = [ln for ln in text.split("\n") if not _FENCE_LINE.match(ln)]
    lines = _dedent_indented_blocks(lines)
    heads: list[int] = []
    prose = True
    for i, ln in enumerate(lines):
        if not ln.strip() or ln[0] in " \t":
            continue
        if _CODE_START.match(ln):
            if prose:
                heads.append(i)
            prose = False
        elif not _STATEMENT_LINE.match(ln):
            prose = True
    for head in reversed(heads[-8:]):
        end = len(lines)
        for _ in range(TRIM_LINES):
            chunk = "\n".join(lines[head:end]).rstrip() + "\n"
            tree = _parse(chunk)
            if tree is not None:
                if _defines(chunk, function, tree):
                    return chunk
                break
            end -= 1
            while end > head and not lines[end - 1].strip():
                end -= 1
            if end <= head:
                break
    return None


def extract_code(text: str, function: str | None = None) -> Extraction:
    """The Python code in ``text`` to run against a case's tests (see the module docstring).

    Args:
        text: the answer.
        function: the name the tests call; picks the block that defines it.
    """
    text, capped = cap_text(text)
    blocks = code_blocks(text)
    n = len(blocks)
    if function:
        defining = [i for i, (_, code) in enumerate(blocks) if _defines(code, function)]
        if defining:
            i = defining[-1]
            return extracted(
                blocks[i][1],
                "fenced_defines",
                f"code block {i + 1} of {n} defines {function}()"
                + (f" (the last of {len(defining)} that do)" if len(defining) > 1 else ""),
                capped,
            )
        whole = _parse(text)
        if whole is not None and _defines(text, function, whole):
            return extracted(
                text,
                "whole_answer",
                f"no fenced block; the whole answer parses as Python and defines {function}()",
                capped,
            )
        code = _unfenced(text, function)
        if code is not None:
            return extracted(
                code,
                "unfenced_defines",
                f"unfenced code that parses and defines {function}() (prose and stray fences left out)",
                capped,
            )
    if blocks:
        py = [i for i, (lang, _) in enumerate(blocks) if lang in _PYTHON_LANGS]
        i, method = (py[0], "first_python_block") if py else (0, "first_block")
        lang = blocks[i][0] or "no language"
        missing = f"; no block defines {function}()" if function else ""
        return extracted(blocks[i][1], method, f"code block {i + 1} of {n} ({lang}){missing}", capped)
    tree = _parse(text)
    if tree is not None and not function and any(not isinstance(node, ast.Expr) for node in tree.body):
        return extracted(text, "whole_answer", "no fenced block; the whole answer parses as Python", capped)
    what = f" defining {function}()" if function else ""
    return extracted(None, "none", f"no fenced code block and no Python code{what} in the answer", capped)
