"""References to user scorers: what the configuration may name and how a name becomes a callable.

Shared vocabulary on the ground floor: the config checks its ``scorers:`` entries load, the dataset
loader checks the shape of the names a dataset lists, and :mod:`harness.scorers.user` wraps what is
resolved here into an isolated scorer. Nothing here runs a scorer.

- A **reference** is ``package.module:function``: only the configuration's entries are resolved
  (the module imported), never a name read from a dataset.
- An **entry point** of the ``council_harness.scorers`` group is an installed package's scorer,
  ``name = "module:function"``; :func:`installed_entry_points` reads the metadata without importing.
- A dataset writes **names** (:data:`SCORER_NAME`): a config entry as written or an entry point's name.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

#: The entry-point group a package registers its scorers in (``name = "module:function"``).
ENTRY_POINT_GROUP = "council_harness.scorers"
_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
#: what a dataset may write under ``scorers:``: a name, never resolved as a module
SCORER_NAME = re.compile(r"^[A-Za-z_][\w.\-]*(:[A-Za-z_][\w.]*)?$")

_RESOLVED: set[str] = set()
#: sys.path -> the installed entry points of the group, name -> ``module:function`` (read, not loaded)
_ENTRY_POINTS: dict[tuple[str, ...], dict[str, str]] = {}


class ScorerImportError(ValueError):
    """A scorer the configuration names that does not load (a module, attribute or entry point)."""


def is_reference(entry: str) -> bool:
    """Whether a config entry is a ``module:function`` reference (else an entry point's name)."""
    return bool(_REF.match(entry))


def resolve(ref: str) -> Callable[..., Any]:
    """The callable ``ref`` (``package.module:function``) names. Only the configuration's entries
    and installed entry points are resolved; never a name read from a dataset.

    Raises:
        ScorerImportError: ``ref`` is not ``module:function``, the module does not import, or the
            attribute is missing or not callable; the message says which.
    """
    if not isinstance(ref, str) or not _REF.match(ref):
        raise ScorerImportError(
            f"expected 'module:function' (an importable module and a function in it) or the "
            f"name of an installed {ENTRY_POINT_GROUP} entry point, got {ref!r}"
        )
    module_name, _, attr = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any import-time error is theirs to see
        raise ScorerImportError(
            f"scorer {ref!r}: cannot import module {module_name!r} ({type(exc).__name__}: {exc})"
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ScorerImportError(f"scorer {ref!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ScorerImportError(f"scorer {ref!r}: {attr!r} is a {type(obj).__name__}, expected a function")
    _RESOLVED.add(ref)
    return obj


def installed_entry_points() -> dict[str, str]:
    """The ``council_harness.scorers`` entry points installed for this ``sys.path``, name -> value.
    Read from the distributions' metadata: nothing is imported."""
    key = tuple(sys.path)
    if key not in _ENTRY_POINTS:
        found: dict[str, str] = {}
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            found.setdefault(ep.name, ep.value)
        _ENTRY_POINTS[key] = found
    return _ENTRY_POINTS[key]


def entry_point_reference(name: str) -> str:
    """The ``module:function`` of the installed entry point ``name`` (not loaded).

    Raises:
        ScorerImportError: no such entry point is installed (naming those that are).
    """
    installed = installed_entry_points()
    if name not in installed:
        known = ", ".join(sorted(installed)) or "none"
        raise ScorerImportError(
            f"no entry point {name!r} is installed in the {ENTRY_POINT_GROUP} group (installed: {known})"
        )
    return installed[name]


def declared_reference(entry: str) -> str:
    """The ``module:function`` a config ``scorers:`` entry declares: the entry itself, or the value of
    the installed entry point it names (not loaded).

    Raises:
        ScorerImportError: neither a reference nor an installed entry point's name.
    """
    if is_reference(entry):
        return entry
    installed = installed_entry_points()
    if entry not in installed:
        raise ScorerImportError(
            f"expected 'module:function' or the name of an installed {ENTRY_POINT_GROUP} "
            f"entry point (installed: {', '.join(sorted(installed)) or 'none'}), got {entry!r}"
        )
    return installed[entry]


def user_scorers_possible() -> bool:
    """Whether any user scorer may be in play in this process (a configured reference resolved, or an
    entry point installed): a ``minimum_scores`` name no built-in scorer produces may then be one of theirs."""
    return bool(_RESOLVED) or bool(installed_entry_points())


def load_declared(entry: str) -> tuple[str, Callable[..., Any]]:
    """The ``module:function`` a config entry (or an entry point's name) declares, and its callable,
    loaded now.

    Raises:
        ScorerImportError: the entry does not load; for an entry point, the message says it is broken.
    """
    ref = declared_reference(entry)
    try:
        return ref, resolve(ref)
    except ScorerImportError as exc:
        if is_reference(entry):
            raise
        raise ScorerImportError(f"entry point {entry!r} of the {ENTRY_POINT_GROUP} group is broken: {exc}") from None
