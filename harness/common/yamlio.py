"""YAML loading that remembers where every value came from, for ``file:line`` errors.

Duplicate mapping keys (which PyYAML silently accepts) are an error here. YAML merge keys
(``<<: *base``) are supported: the mapping's own keys override the merged ones.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.common.errors import DatasetError
from harness.common.fsutil import NotRegularFile, read_bounded_text

Path_ = tuple[Any, ...]
#: the largest dataset or config file read: about 90,000 three-line cases, which load in seconds
#: (a 30 MB file of 440,000 cases took 110 s and 3.3 GB); larger datasets are split into several files
MAX_YAML_BYTES = 8 * 1024 * 1024
#: at most this many values per distinct YAML node (+ the base) once aliases are expanded; counted per
#: node, not per character, so comments (which make no node) cannot raise the budget of an alias bomb
ALIAS_BUDGET_PER_NODE = 10
ALIAS_BUDGET_BASE = 100_000
#: the most distinct YAML nodes a file may hold (an 8 MiB file of three-line cases holds about 1.3 million)
MAX_NODES = 4_000_000
#: libyaml's parser when PyYAML was built with it (several times faster, and it stops at 1000 levels of
#: nesting with a clear error); the pure-Python one otherwise. Values are constructed by SafeConstructor.
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class LocatedYaml:
    """Plain YAML data plus the 1-based line of every node, keyed by its path of keys/indexes."""

    path: Path
    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)

    def line(self, loc: Path_) -> int:
        """The line of ``loc`` or of its nearest located parent."""
        loc = tuple(loc)
        while loc:
            if loc in self.lines:
                return self.lines[loc]
            loc = loc[:-1]
        return self.lines.get((), 1)

    def where(self, loc: Path_) -> str:
        return f"{self.path}:{self.line(loc)}"

    def with_data(self, data: Any) -> LocatedYaml:
        return LocatedYaml(self.path, data, self.lines)

    def sub(self, prefix: Path_) -> LocatedYaml:
        """A view whose paths are relative to ``prefix``."""
        n = len(prefix)
        lines = {k[n:]: v for k, v in self.lines.items() if k[:n] == tuple(prefix)}
        node: Any = self.data
        for key in prefix:
            node = node[key]
        return LocatedYaml(self.path, node, lines)


def _build(node: yaml.Node, loc: Path_, lines: dict[Path_, int], path: Path, budget: list[int]) -> Any:
    budget[0] -= 1  # aliases re-expand shared nodes: bound the total so an alias bomb stops early
    if budget[0] < 0:
        raise DatasetError("too many values once YAML aliases are expanded (an alias bomb?)", str(path))
    if isinstance(node, yaml.MappingNode):
        out = _merged(node, loc, lines, path, budget)
        lines[loc] = node.start_mark.line + 1
        explicit: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = _scalar(key_node, path)
            if isinstance(key, list | dict | set):
                raise DatasetError("mapping keys must be plain scalars", f"{path}:{key_node.start_mark.line + 1}")
            if key in explicit:
                raise DatasetError(
                    f"duplicate key '{key}' (the first one would be silently overwritten)",
                    f"{path}:{key_node.start_mark.line + 1}",
                )
            explicit.add(key)
            out[key] = _build(value_node, loc + (key,), lines, path, budget)
            lines[loc + (key,)] = key_node.start_mark.line + 1
        return out
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.SequenceNode):
        return [_build(child, loc + (i,), lines, path, budget) for i, child in enumerate(node.value)]
    return _scalar(node, path)


def _merged(
    node: yaml.MappingNode,
    loc: Path_,
    lines: dict[Path_, int],
    path: Path,
    budget: list[int],
) -> dict[Any, Any]:
    """The entries a mapping takes from its YAML merge keys (``<<: *base`` or ``<<: [*a, *b]``).

    The mapping's own keys override merged ones (they are set afterwards); among several merged
    mappings the first one listed wins. A merged entry's line is where the anchored mapping defines it.
    """
    out: dict[Any, Any] = {}
    merge_values = [value for key, value in node.value if key.tag == _MERGE_TAG]
    if len(merge_values) > 1:
        second = [key for key, _ in node.value if key.tag == _MERGE_TAG][1]
        raise DatasetError(
            "duplicate merge key '<<' (list the mappings in one: <<: [*a, *b])", f"{path}:{second.start_mark.line + 1}"
        )
    for value in merge_values:
        sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                raise DatasetError(
                    "a merge key '<<' expects a mapping or a list of mappings, e.g. '<<: *base'",
                    f"{path}:{source.start_mark.line + 1}",
                )
            for key, item in _build(source, loc, lines, path, budget).items():
                out.setdefault(key, item)
    return out


def _scalar(node: yaml.Node, path: Path) -> Any:
    if isinstance(node, yaml.ScalarNode) and node.tag == _STR_TAG:
        return node.value  # exactly what SafeConstructor.construct_yaml_str returns, without building one
    constructor = yaml.constructor.SafeConstructor()  # cheap: no reader/scanner per scalar
    try:
        return constructor.construct_object(node, deep=True)
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. ``!!int abc``, ``!!timestamp 2020-13-45``
        raise DatasetError(
            f"YAML value error: {str(node.value)[:60]!r} is not a valid {node.tag.rsplit(':', 1)[-1]} ({exc})",
            f"{path}:{node.start_mark.line + 1}",
        ) from None


def _distinct_nodes(root: yaml.Node, path: Path) -> int:
    """The YAML nodes of a composed document, each alias target counted once (an iterative walk)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if len(seen) > MAX_NODES:
            raise DatasetError(f"more than {MAX_NODES:,} YAML values; split the dataset into several files", str(path))
        if isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return len(seen)


def load_yaml(path: Path | str, text: str | None = None) -> LocatedYaml:
    """Parse a YAML file into plain data with line numbers.

    Raises:
        DatasetError: unreadable file, syntax error (with its line and column), duplicate keys,
            more than one document, a file over :data:`MAX_YAML_BYTES` (8 MiB) or of more than
            :data:`MAX_NODES` values, aliases that expand to more than :data:`ALIAS_BUDGET_PER_NODE`
            values per node (an alias bomb), or running out of memory: each one naming the file.
    """
    path = Path(path)
    if text is None:
        try:
            info = os.stat(path)
            size = info.st_size
            if stat.S_ISREG(info.st_mode) and size > MAX_YAML_BYTES:
                raise DatasetError(
                    f"file is larger than {MAX_YAML_BYTES // 2**20} MiB ({size / 2**20:.1f} MiB), the "
                    "cap on dataset and config files; split the dataset into several files",
                    str(path),
                )
            # a leading byte-order mark is not content; a device or FIFO is refused before it is read
            text = read_bounded_text(path, MAX_YAML_BYTES, encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DatasetError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path)) from None
        except NotRegularFile as exc:
            raise DatasetError(f"cannot read file: {exc.message}", str(path)) from None
        except OSError as exc:
            raise DatasetError(f"cannot read file ({exc.strerror})", str(path)) from None
    try:
        docs = list(yaml.compose_all(text, Loader=_COMPOSER))
    except MemoryError:
        raise DatasetError("out of memory parsing the YAML; expected a plain dataset", str(path)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = exc.problem or exc.context or "invalid YAML"
        raise DatasetError(f"YAML syntax error: {problem}", where) from None
    except yaml.reader.ReaderError as exc:  # a control character such as NUL: name its line
        line = text.count("\n", 0, exc.position) + 1
        char = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        raise DatasetError(
            f"YAML cannot contain the control character {char}; expected printable text", f"{path}:{line}"
        ) from None
    except yaml.YAMLError as exc:
        raise DatasetError(f"YAML error: {' '.join(str(exc).split())}", str(path)) from None
    except RecursionError:
        raise DatasetError("YAML nested too deeply (expected at most a few hundred levels)", str(path)) from None
    if len(docs) > 1:
        raise DatasetError("expected one YAML document, found several ('---')", str(path))
    if not docs or docs[0] is None:
        return LocatedYaml(path, None, {(): 1})
    lines: dict[Path_, int] = {}
    try:
        data = _build(
            docs[0], (), lines, path, [ALIAS_BUDGET_PER_NODE * _distinct_nodes(docs[0], path) + ALIAS_BUDGET_BASE]
        )
    except MemoryError:
        lines.clear()
        raise DatasetError(
            "out of memory building the YAML values (an alias bomb, or a file too large "
            "to load); expected a plain dataset",
            str(path),
        ) from None
    except RecursionError:
        raise DatasetError("YAML nested too deeply (expected at most a few hundred levels)", str(path)) from None
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise DatasetError(f"YAML value error: {exc.problem}", where) from None
    return LocatedYaml(path, data, lines)
