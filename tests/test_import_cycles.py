"""No import cycle inside ``harness/``.

The import graph is grimp's (the library import-linter is built on), read from the source without
importing it. An edge ``a -> b`` is any ``import b`` / ``from b import ...`` in module ``a``:

- **deferred imports count**: an import inside a function is still a dependency of ``a`` on ``b``
  (a late import that dodges a cycle at import time hides the cycle, it does not remove it);
- **imports under ``if TYPE_CHECKING:`` do not count**: they never run, they only name types for
  the type checker.

A cycle is reported as the chain of modules with the line of each import, so the fix (move the
shared word down into a ground-floor module) is easy to find.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import grimp
import pytest


def import_graph(package: str) -> grimp.ImportGraph:
    return grimp.build_graph(package, exclude_type_checking_imports=True, cache_dir=None)


def tangles(graph: grimp.ImportGraph) -> dict[frozenset[str], list[str]]:
    """Every import cycle in ``graph``: each group of modules that import one another (directly or
    through others), mapped to one closed chain ``[m0, m1, ..., m0]`` through its first module in name
    order (a shortest one; which of several equally short chains is grimp's choice).

    A group of n modules tangled together is reported once, not n times.
    """
    found: dict[frozenset[str], list[str]] = {}
    done: set[str] = set()
    for module in sorted(graph.modules):
        if module in done:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                group = frozenset(
                    {module}
                    | {
                        m
                        for m in graph.modules
                        if m != module
                        and graph.chain_exists(importer=module, imported=m)
                        and graph.chain_exists(importer=m, imported=module)
                    }
                )
                found[group] = [module, *back]
                done |= group
                break
    return found


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    steps = []
    for a, b in zip(cycle, cycle[1:], strict=False):
        details = graph.get_import_details(importer=a, imported=b)
        where = ", ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)
        steps.append(f"  {a} -> {b}  ({where})")
    return "\n".join(steps)


#: Imports left out of the check while another change removes them (importer, imported) -> reason, as
#: import-linter's ``ignore_imports``; the test fails once one of them is gone, so its entry goes with the fix.
IGNORED_IMPORTS: dict[tuple[str, str], str] = {}


def test_harness_has_no_import_cycle() -> None:
    graph = import_graph("harness")
    gone = [edge for edge in IGNORED_IMPORTS if not graph.direct_import_exists(importer=edge[0], imported=edge[1])]
    assert not gone, f"import(s) no longer made: delete them from IGNORED_IMPORTS: {gone}"
    for importer, imported in IGNORED_IMPORTS:
        graph.remove_import(importer=importer, imported=imported)
    cycles = list(tangles(graph).values())
    assert not cycles, "import cycles inside harness/:\n" + "\n\n".join(describe(graph, c) for c in cycles)


def _write_package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_check_finds_a_deferred_cycle_and_ignores_type_checking_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check itself: a late import inside a function closes a cycle; a TYPE_CHECKING one does not."""
    _write_package(
        tmp_path,
        {
            "cyc_pkg/__init__.py": "",
            "cyc_pkg/low.py": """\
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from cyc_pkg.high import High  # names a type only: not an edge


            def late() -> int:
                from cyc_pkg.mid import VALUE  # deferred: still an edge
                return VALUE
            """,
            "cyc_pkg/mid.py": "from cyc_pkg.low import late\nVALUE = 1\n",
            "cyc_pkg/high.py": "from cyc_pkg.low import late\nclass High: ...\n",
            "cyc_pkg/alone.py": "import cyc_pkg.high\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = import_graph("cyc_pkg")
    found = tangles(graph)
    assert found == {frozenset({"cyc_pkg.low", "cyc_pkg.mid"}): ["cyc_pkg.low", "cyc_pkg.mid", "cyc_pkg.low"]}
    text = describe(graph, found[frozenset({"cyc_pkg.low", "cyc_pkg.mid"})])
    assert "cyc_pkg.low -> cyc_pkg.mid  (line 8: from cyc_pkg.mid import VALUE" in text
    assert "cyc_pkg.mid -> cyc_pkg.low  (line 1: from cyc_pkg.low import late)" in text
