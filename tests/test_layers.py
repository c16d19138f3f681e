"""ARCHITECTURE.md's "what each package may import" table, as a test.

The import graph is grimp's, read from the source (the same graph as ``test_import_cycles.py``):
a deferred import inside a function counts; one under ``if TYPE_CHECKING:`` is checked separately
(:func:`test_type_only_imports_go_no_higher_either`: no type-only loop across layers). Every import
from one top-level part of ``harness`` (a package such as ``harness.gate`` or a module such as
``harness.config``) into another must be allowed by :data:`MAY_IMPORT`; there is no exemption list.
A failure names the importing module, the line and the rule it breaks, so the fix (move the shared
word down to ``common``/``records``, or change the table in ARCHITECTURE.md with a reason) is plain.
"""

from __future__ import annotations

import grimp

# Rows of ARCHITECTURE.md's table, top (ground floor) to bottom; a part may import the parts named
# in its own entry. "the rows above" is spelled out so the table and the test cannot drift apart.
_GROUND = ("common",)
_RECORDS = (*_GROUND, "records")
_CONFIG = (*_RECORDS, "config")
_BASE = (*_CONFIG, "data", "providers", "stats", "sandbox")
_DELIBERATE = (*_BASE, "council", "metrics")
_BIAS = (*_DELIBERATE, "bias")
_SCORERS = (*_BIAS, "scorers")
_RUN = (*_SCORERS, "run")
_GATE = (*_RUN, "gate")
_VIEWS = (*_GATE, "report", "tier2")
_FINISH = (*_VIEWS, "finish")

MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "common": (),
    "records": _GROUND,
    "config": _RECORDS,
    "data": _CONFIG,
    "providers": _CONFIG,
    "stats": _GROUND,
    "sandbox": _GROUND,
    "council": _DELIBERATE,
    "metrics": _DELIBERATE,
    "bias": _DELIBERATE,
    "scorers": _BIAS,
    "run": _SCORERS,
    "gate": _RUN,
    "report": _VIEWS,
    "tier2": _VIEWS,
    "finish": _VIEWS,
    "api": _FINISH,
    "cli": (*_FINISH, "api", "cli", "pytest_plugin"),
    "pytest_plugin": (*_FINISH, "api", "cli"),
}


def part_of(module: str) -> str | None:
    """The top-level part of ``harness`` a module belongs to (``harness.gate.repeats`` -> ``gate``);
    ``None`` for the package's own ``__init__``."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else None


def upward_imports(graph: grimp.ImportGraph) -> list[str]:
    """Every import the table does not allow, as ``importer:line -> imported (rule)``."""
    found: list[str] = []
    for importer in sorted(graph.modules):
        source = part_of(importer)
        if source is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            target = part_of(imported)
            if target is None or target == source or not imported.startswith("harness."):
                continue
            if target not in MAY_IMPORT[source]:
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    found.append(
                        f"{importer}:{detail['line_number']} -> {imported}  "
                        f"({source} may import only: {', '.join(MAY_IMPORT[source]) or 'nothing in harness'})"
                    )
    return found


def test_every_part_of_the_package_has_a_row() -> None:
    graph = grimp.build_graph("harness", exclude_type_checking_imports=True, cache_dir=None)
    parts = {p for m in graph.modules if (p := part_of(m)) is not None}
    assert parts == set(MAY_IMPORT), "a part of harness has no row in the table (or a row names a part that is gone)"


def test_no_import_goes_up_a_layer() -> None:
    graph = grimp.build_graph("harness", exclude_type_checking_imports=True, cache_dir=None)
    found = upward_imports(graph)
    assert not found, "imports that ARCHITECTURE.md's table does not allow:\n" + "\n".join(found)


def test_type_only_imports_go_no_higher_either() -> None:
    # annotations may not reach up a layer: a type-only loop (config -> scorers -> data -> providers ->
    # config, issue 31) is a cycle for every reader of the code, if not for the interpreter
    graph = grimp.build_graph("harness", exclude_type_checking_imports=False, cache_dir=None)
    found = upward_imports(graph)
    assert not found, "type-only imports that ARCHITECTURE.md's table does not allow:\n" + "\n".join(found)


def test_the_check_catches_an_injected_upward_import() -> None:
    # the same graph plus one import the table forbids: common reading the CLI's argument helpers
    graph = grimp.build_graph("harness", exclude_type_checking_imports=True, cache_dir=None)
    graph.add_import(
        importer="harness.common.text",
        imported="harness.cli.args",
        line_number=1,
        line_contents="from harness.cli.args import positive_int",
    )
    found = upward_imports(graph)
    assert any(f.startswith("harness.common.text:1 -> harness.cli.args") for f in found)
