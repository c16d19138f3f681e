"""Golden datasets and suites: typed cases loaded from YAML with ``file:line`` errors.

Golden file (seed 001 section 3.2)::

    golden_datasets:
      - name: ...
        description: ...
        evaluation_mode: automatic | expert_review   # optional, inherited by queries
        answer_format: auto | none   # optional, default auto: append the answer-format instruction
                                     # that fits each case's expected type (harness.data.answer_format);
                                     # none opts out
        scorers: [name]              # optional: scorers the config declares or entry points installed,
                                     # by name; never imported from here (harness.scorers.user)
        queries:
          - id: ...
            query: ...
            ground_truth: ...            # optional
            minimum_scores: {name: min}  # any registered score name (or a user scorer's)
            required_mentions: [...]
            forbidden_claims: [...]
            rubric: [{dimension, weight, criteria}]
            evaluation_mode: ...         # optional
            expected: {type: exact|numeric|regex|choice|any_of|boolean|python, ...}
            context: [...]               # optional, for RAGAS / hallucination
            tags: [...]

Suite file: ``suite: {name, description, challenges: [... same fields plus category ...]}``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from harness.common.errors import DatasetError
from harness.common.model import Frozen
from harness.common.scorer_refs import SCORER_NAME, user_scorers_possible
from harness.common.yamlio import LocatedYaml, load_yaml
from harness.data.answer_format import AnswerFormat, with_instruction
from harness.data.expected import Expected
from harness.records.score_spec import SCORES, score_scale

EvaluationMode = Literal["automatic", "expert_review"]
DatasetKind = Literal["golden", "suite"]


class RubricCriterion(Frozen):
    """A case-specific rubric dimension (seed 001's ``rubric:`` list)."""

    dimension: str = Field(min_length=1)
    weight: float = Field(ge=0, le=1)
    criteria: str = Field(min_length=1)


class Case(Frozen):
    """One query with everything needed to judge an answer to it."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:\-]+$")
    query: str = Field(min_length=1)
    ground_truth: str | None = None
    minimum_scores: dict[str, float] = {}
    required_mentions: tuple[str, ...] = ()
    forbidden_claims: tuple[str, ...] = ()
    rubric: tuple[RubricCriterion, ...] = ()
    evaluation_mode: EvaluationMode = "automatic"
    expected: Expected | None = None
    context: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    category: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")
    origin: str | None = None  # where an imported case came from (source and row)
    # the names of the scorers its dataset lists (filled by the loader; harness.scorers.user)
    scorers: tuple[str, ...] = ()
    # where it came from (filled by the loader)
    dataset: str = ""
    source: str = ""

    @field_validator("id")
    @classmethod
    def _no_node_separator(cls, v: str) -> str:
        if "::" in v:
            raise ValueError(
                "a case id cannot contain '::' (it separates dataset and case in pytest node ids and "
                "review-verdict keys); expected letters, digits, '_', '.', '-' and single ':'"
            )
        return v

    @field_validator("minimum_scores")
    @classmethod
    def _known_scores(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(k for k in v if k not in SCORES)
        if unknown and not user_scorers_possible():  # else a name a user scorer's mapping may return
            raise ValueError(f"unknown score name(s) {unknown}; valid names are: {', '.join(sorted(SCORES))}")
        not_finite = sorted(k for k, bound in v.items() if not math.isfinite(bound))
        if not_finite:
            raise ValueError(f"expected finite numbers as bounds, not NaN or infinity: {not_finite}")
        outside = [
            f"{k}: {bound:g} (scale 0-{score_scale(k):g})"
            for k, bound in sorted(v.items())
            if k in SCORES.builtin and not 0 <= bound <= score_scale(k)
        ]
        if outside:
            raise ValueError(f"bound outside the score's scale, so it can never be met (or never fail): {outside}")
        return v

    @field_validator("query")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the query is blank; expected the question to ask")
        return v

    @field_validator("required_mentions", "forbidden_claims")
    @classmethod
    def _no_blank_entries(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        blank = [i for i, s in enumerate(v) if not s.strip()]
        if blank:
            effect = (
                "every answer contains it, so the check can never fail"
                if info.field_name == "required_mentions"
                else "every answer contains it, so the case can never pass"
            )
            raise ValueError(f"entry {blank[0]} is empty or blank ({effect}); expected text to look for")
        return v

    @model_validator(mode="after")
    def _rubric_weights(self) -> Case:
        if self.rubric:
            total = sum(c.weight for c in self.rubric)
            if abs(total - 1.0) > 0.001:
                raise ValueError(f"rubric weights must sum to 1 (within 0.001), they sum to {total:.4f}")
        return self

    @property
    def nodeid_part(self) -> str:
        return f"{self.dataset}::{self.id}"


class ScorerName(Frozen):
    """A scorer a dataset names under ``scorers:`` and where (checked against the configuration by
    :func:`harness.scorers.names.scorer_name_errors`; never imported by the loader)."""

    name: str
    where: str


class Dataset(Frozen):
    """A named list of cases from one file."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    description: str = ""
    kind: DatasetKind = "golden"
    evaluation_mode: EvaluationMode = "automatic"
    answer_format: AnswerFormat = "auto"
    cases: tuple[Case, ...]
    path: str = ""
    scorers: tuple[ScorerName, ...] = ()


_CASE_KEYS = set(Case.model_fields) - {"dataset", "source", "scorers"}


def _fmt_loc(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


_UNION_TAGS = {"exact", "numeric", "regex", "choice", "any_of", "python", "boolean"}


def _without_union_tags(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Drop pydantic's discriminator tag (``expected.numeric.value`` -> ``expected.value``)."""
    return tuple(p for i, p in enumerate(loc) if not (i > 0 and loc[i - 1] == "expected" and p in _UNION_TAGS))


def _validation_error(exc: ValidationError, located: LocatedYaml, prefix: tuple[Any, ...]) -> DatasetError:
    parts = []
    for err in exc.errors()[:5]:
        loc = tuple(err["loc"])
        shown = _without_union_tags(loc)
        where = located.where(prefix + shown)
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (check its spelling)"
        elif err["type"] == "missing":
            msg = "required key is missing"
        parts.append(f"{where}: '{_fmt_loc(shown)}': {msg}")
    more = len(exc.errors()) - 5
    tail = f" (and {more} more)" if more > 0 else ""
    first_where, _, rest = parts[0].partition(": ")
    return DatasetError("; ".join([rest] + parts[1:]) + tail, first_where)


def _load_cases(
    located: LocatedYaml,
    items: Any,
    items_loc: tuple[Any, ...],
    dataset: str,
    default_mode: str,
    require_category: bool,
    answer_format: AnswerFormat = "auto",
    scorers: tuple[str, ...] = (),
) -> tuple[Case, ...]:
    if not isinstance(items, list):
        raise DatasetError("expected a list of cases", located.where(items_loc))
    if not items:
        raise DatasetError("the dataset has no cases", located.where(items_loc))
    cases: list[Case] = []
    seen: dict[str, str] = {}
    problems: list[DatasetError] = []
    for i, raw in enumerate(items):
        loc = items_loc + (i,)
        if not isinstance(raw, dict):
            problems.append(DatasetError("expected a mapping with at least 'id' and 'query'", located.where(loc)))
            continue
        data = dict(raw)
        data.setdefault("evaluation_mode", default_mode)
        where = located.where(loc)
        try:
            case = Case.model_validate({**data, "dataset": dataset, "source": where, "scorers": scorers})
        except ValidationError as exc:
            problems.append(_validation_error(exc, located, loc))
            continue
        if require_category and case.category is None:
            problems.append(DatasetError("'category': required for suite challenges", where))
        if case.id in seen:
            problems.append(DatasetError(f"duplicate case id '{case.id}' (first at {seen[case.id]})", where))
        seen.setdefault(case.id, where)
        query = with_instruction(case.query, case.expected, answer_format)
        cases.append(case if query == case.query else case.model_copy(update={"query": query}))
    if problems:
        raise DatasetError.of(problems)
    return tuple(cases)


def load_datasets(path: Path | str) -> list[Dataset]:
    """Load every dataset in a golden or suite YAML file.

    Raises:
        DatasetError: naming ``file:line`` and what was expected.
    """
    return datasets_from_yaml(load_yaml(path))


def datasets_from_yaml(located: LocatedYaml) -> list[Dataset]:
    """The datasets of an already parsed golden or suite file (see :func:`load_datasets`)."""
    data = located.data
    if not isinstance(data, dict) or not ({"golden_datasets", "suite"} & set(data)):
        raise DatasetError("expected a top-level 'golden_datasets:' list or a 'suite:' mapping", located.where(()))
    extra = sorted(set(data) - {"golden_datasets", "suite"})
    if extra:
        raise DatasetError(f"unknown top-level key(s) {extra}", located.where((extra[0],)))
    datasets: list[Dataset] = []
    problems: list[DatasetError] = []
    entries_at: list[tuple[Any, tuple[Any, ...], str, str]] = []
    if "golden_datasets" in data:
        entries = data["golden_datasets"]
        if not isinstance(entries, list) or not entries:
            raise DatasetError("'golden_datasets' must be a non-empty list", located.where(("golden_datasets",)))
        entries_at += [(entry, ("golden_datasets", i), "golden", "queries") for i, entry in enumerate(entries)]
    if "suite" in data:
        entries_at.append((data["suite"], ("suite",), "suite", "challenges"))
    for entry, loc, kind, items_key in entries_at:
        try:
            datasets.append(_dataset(located, entry, loc, kind, items_key))
        except DatasetError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DatasetError.of(problems)
    names = [d.name for d in datasets]
    for name in names:
        if names.count(name) > 1:
            raise DatasetError(f"duplicate dataset name '{name}'", located.where(()))
    return datasets


def _dataset_scorers(located: LocatedYaml, refs: Any, loc: tuple[Any, ...]) -> tuple[ScorerName, ...]:
    """A dataset's ``scorers:`` list: names, each checked for its form only (nothing is imported)."""
    if not isinstance(refs, list):
        raise DatasetError("'scorers' must be a list of scorer names", located.where(loc))
    out = []
    for i, ref in enumerate(refs):
        if not isinstance(ref, str) or not SCORER_NAME.match(ref):
            raise DatasetError(
                f"'scorers.{i}': expected the name of a scorer the config declares or an installed "
                f"entry point, got {ref!r}",
                located.where(loc + (i,)),
            )
        out.append(ScorerName(name=ref, where=located.where(loc + (i,))))
    return tuple(out)


def _dataset(located: LocatedYaml, entry: Any, loc: tuple[Any, ...], kind: str, items_key: str) -> Dataset:
    if not isinstance(entry, dict):
        raise DatasetError("expected a mapping with 'name' and '" + items_key + "'", located.where(loc))
    allowed = {"name", "description", "evaluation_mode", "answer_format", "scorers", items_key}
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise DatasetError(
            f"unknown key '{unknown[0]}' in dataset; expected {sorted(allowed)}", located.where(loc + (unknown[0],))
        )
    for key in ("name", items_key):
        if key not in entry:
            raise DatasetError(f"'{key}': required key is missing", located.where(loc))
    name = entry["name"]
    if not isinstance(name, str):
        raise DatasetError("'name' must be a string", located.where(loc + ("name",)))
    mode = entry.get("evaluation_mode", "automatic")
    if mode not in ("automatic", "expert_review"):
        raise DatasetError(
            f"'evaluation_mode' must be 'automatic' or 'expert_review', got {mode!r}",
            located.where(loc + ("evaluation_mode",)),
        )
    answer_format = entry.get("answer_format", "auto")
    if answer_format not in ("auto", "none"):
        raise DatasetError(
            f"'answer_format' must be 'auto' or 'none', got {answer_format!r}", located.where(loc + ("answer_format",))
        )
    scorers = _dataset_scorers(located, entry.get("scorers", []), loc + ("scorers",))
    cases = _load_cases(
        located,
        entry[items_key],
        loc + (items_key,),
        name,
        mode,
        kind == "suite",
        answer_format,
        tuple(dict.fromkeys(s.name for s in scorers)),
    )
    try:
        return Dataset(
            name=name,
            description=str(entry.get("description", "")),
            kind=kind,  # type: ignore[arg-type]
            evaluation_mode=mode,
            answer_format=answer_format,
            cases=cases,
            path=str(located.path),
            scorers=scorers,
        )
    except ValidationError as exc:
        raise _validation_error(exc, located, loc) from None


YAML_SUFFIXES = (".yaml", ".yml")


def is_yaml_file(path: Path) -> bool:
    """A ``.yaml`` or ``.yml`` file, in any letter case (``.YAML`` too)."""
    return path.suffix.lower() in YAML_SUFFIXES and path.is_file()


def is_dataset_file(path: Path) -> bool:
    """Whether ``path`` is a golden dataset or suite file, decided by parsing it (not by its first bytes).

    A YAML file whose top level is a mapping with ``golden_datasets`` or ``suite`` is one, whatever its
    layout (a byte-order mark, long leading comments, flow style, an upper-case ``.YAML``). A YAML file
    that does not parse counts as one too, so loading it reports the error with its ``file:line``
    rather than skipping it silently; other YAML files (a config, a baseline) are not.
    """
    if not is_yaml_file(path):
        return False
    try:
        return _is_dataset(load_yaml(path))
    except DatasetError:
        return True


def _is_dataset(located: LocatedYaml) -> bool:
    return isinstance(located.data, dict) and bool({"golden_datasets", "suite"} & set(located.data))


def _folder_datasets(folder: Path) -> list[Dataset]:
    """The datasets of every dataset file under ``folder`` (recursively, by path); other YAML is skipped.

    Each file is parsed once; one that does not parse is an error naming its ``file:line``.
    """
    out: list[Dataset] = []
    for f in sorted(f for f in folder.rglob("*") if is_yaml_file(f)):
        located = load_yaml(f)
        if _is_dataset(located):
            out.extend(datasets_from_yaml(located))
    return out


def discover(paths: list[Path]) -> list[Dataset]:
    """Load every dataset file under the given files or folders, sorted by path.

    Raises:
        DatasetError: a path that does not exist, a folder without any dataset file, a file that
            cannot be loaded, or two files defining the same dataset name (naming both files).
    """
    found: list[Dataset] = []
    for p in paths:
        if p.is_dir():
            in_folder = _folder_datasets(p)
            if not in_folder:
                raise DatasetError(
                    "no dataset file in this folder (expected .yaml/.yml files with a top-level "
                    "'golden_datasets:' list or 'suite:' mapping)",
                    str(p),
                )
            found.extend(in_folder)
        elif p.exists():
            found.extend(load_datasets(p))
        else:
            raise DatasetError("no such file or folder", str(p))
    out: list[Dataset] = []
    first: dict[str, str] = {}
    loaded: set[tuple[str, Path]] = set()
    for dataset in found:
        key = (dataset.name, Path(dataset.path).resolve())
        if key in loaded:
            continue  # the same file named twice (a folder and a file in it)
        if dataset.name in first:
            raise DatasetError(
                f"dataset name '{dataset.name}' is defined in two files: {first[dataset.name]} and "
                f"{dataset.path} (dataset names must be unique: results and baselines are keyed by them)",
                dataset.path,
            )
        loaded.add(key)
        first[dataset.name] = dataset.path
        out.append(dataset)
    return out
