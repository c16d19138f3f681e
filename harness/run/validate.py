"""``council-harness validate``: check datasets and the configuration without running any model.

Every problem is reported (not only the first): each dataset file is loaded on its own, and a file's
loader collects every case-level problem (:meth:`harness.common.errors.DatasetError.of`); then each
scorer a dataset names is checked against the configuration (:mod:`harness.scorers.names`:
nothing a dataset names is imported). ``run`` performs
the same checks before its first model call, so a run never pays model time for a broken file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.common.errors import ConfigError, DatasetError, HarnessError
from harness.data.cases import Dataset, is_dataset_file, load_datasets

DEFAULT_DATA = (Path("golden"), Path("suites"))


@dataclass
class Validation:
    """What ``validate`` found: the datasets that loaded and every problem, each ``(where, message)``."""

    files: list[Path] = field(default_factory=list)
    datasets: list[Dataset] = field(default_factory=list)
    problems: list[tuple[str | None, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def cases(self) -> int:
        return sum(len(d.cases) for d in self.datasets)

    def add(self, exc: HarnessError) -> None:
        for p in getattr(exc, "problems", [exc]):
            self.problems.append((p.where, p.message))

    def lines(self) -> list[str]:
        out = [f"{where}: {msg}" if where else msg for where, msg in self.problems]
        if self.problems:
            bad = len({(w or "").split(":")[0] for w, _ in self.problems})
            out.append(f"{len(self.problems)} problem(s) in {bad} place(s); {len(self.files)} dataset file(s) checked")
        else:
            out.append(f"ok: {len(self.files)} file(s), {len(self.datasets)} dataset(s), {self.cases} case(s)")
        return out


def dataset_files(paths: Sequence[Path], validation: Validation) -> list[Path]:
    """The dataset files under ``paths``; a path that does not exist, or holds no dataset, is a problem."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and is_dataset_file(f))
            if not found:
                validation.add(
                    DatasetError(
                        "holds no dataset file (a YAML file with 'golden_datasets:' or 'suite:' at the top level)",
                        str(p),
                    )
                )
            files.extend(found)
        elif p.exists():
            files.append(p)
        else:
            validation.add(DatasetError("no such file or folder", str(p)))
    return files


def validate(paths: Sequence[Path] | None = None, config: str | None = None) -> Validation:
    """Load the configuration and every dataset under ``paths``, collecting every problem."""
    from harness.config import load_settings
    from harness.scorers.names import scorer_name_errors

    result = Validation()
    settings = None
    try:
        settings = load_settings(config)
    except ConfigError as exc:
        result.add(exc)
    chosen = list(paths) if paths else [p for p in DEFAULT_DATA if p.exists()]
    result.files = dataset_files(chosen, result)
    seen: dict[str, str] = {}
    for f in result.files:
        try:
            loaded = load_datasets(f)
        except DatasetError as exc:
            result.add(exc)
            continue
        for d in loaded:
            if d.name in seen and seen[d.name] != str(f):
                result.add(
                    DatasetError(
                        f"dataset name '{d.name}' is also defined in {seen[d.name]}; dataset names must be unique",
                        str(f),
                    )
                )
                continue
            seen[d.name] = str(f)
            result.datasets.append(d)
    if settings is not None:  # the scorers a dataset names exist (a config that does not load is reported above)
        for problem in scorer_name_errors(result.datasets, settings):
            result.add(problem)
    return result
