"""Which scorers a dataset may name: those the configuration declares, or installed entry points.

A dataset's ``scorers:`` list holds names (:class:`~harness.data.cases.ScorerName`, with their
``file:line``). Each must be an entry of the config's ``scorers:`` as written, or the name of an
entry point installed in the ``council_harness.scorers`` group (:func:`harness.scorers.user.known_scorer_names`);
anything else (``os:system``, ``builtins:exec``, a module of one's own) is a dataset error at its line
listing the known names, and is never imported. A named entry point that the config does not list
is loaded here, so a broken one is reported before any model runs (it is installed code the
environment chose, not a module the dataset chose). ``validate``, ``run`` and the pytest plugin call
:func:`scorer_name_errors` once the configuration and the datasets are loaded.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.common.errors import DatasetError
from harness.common.scorer_refs import ENTRY_POINT_GROUP, ScorerImportError
from harness.config import Settings
from harness.data.cases import Dataset
from harness.scorers.user import entry_point_scorer, known_scorer_names


def scorer_name_errors(datasets: Iterable[Dataset], settings: Settings) -> list[DatasetError]:
    """One error per name, in any dataset, that is not a known scorer or whose entry point is broken."""
    known = known_scorer_names(settings)
    config = set(settings.scorers)
    problems: list[DatasetError] = []
    for dataset in datasets:
        for ref in dataset.scorers:
            if ref.name not in known:
                problems.append(
                    DatasetError(
                        f"'scorers': unknown scorer {ref.name!r}; a dataset may name only a scorer the config's "
                        f"'scorers:' declares or an installed {ENTRY_POINT_GROUP} entry point (nothing it names is "
                        f"imported); known: {', '.join(known) or 'none'}",
                        ref.where,
                    )
                )
            elif ref.name not in config:
                try:
                    entry_point_scorer(ref.name)
                except ScorerImportError as exc:
                    problems.append(DatasetError(f"'scorers': {exc}", ref.where))
    return problems


def check_scorer_names(datasets: Iterable[Dataset], settings: Settings) -> None:
    """Raise every :func:`scorer_name_errors` problem at once.

    Raises:
        DatasetError: naming each unknown or broken scorer at its ``file:line``.
    """
    problems = scorer_name_errors(datasets, settings)
    if problems:
        raise DatasetError.of(problems)
