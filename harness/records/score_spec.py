"""The registry of named scores: one :class:`ScoreSpec` per score a case result can carry.

Every reader of a score's meaning asks here: ``minimum_scores`` validation (:mod:`harness.data.cases`), the
direction of a regression (:mod:`harness.gate.baselines`, :mod:`harness.metrics.checks`), the default gate
tolerance (5% of the scale), the report's labels, badges and charts, and the quality report's trend
table. The built-in scores are declared beside their scorers, one module each in
:mod:`harness.scorers.builtin`, and declared here in the scorers' order (:meth:`ScoreRegistry.declare`). A
user-defined scorer's score (:mod:`harness.scorers.user`) has no spec of its own unless it
registers one; :func:`spec` then describes it as a 0-1, higher-is-better, gated score named after
itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from pydantic import Field, model_validator

from harness.common.model import Frozen


class ScoreSpec(Frozen):
    """What one score means.

    Args:
        name: the key in ``CaseResult.scores`` (and in ``minimum_scores``, baselines, ``export``).
        description: one line, with its scale in words.
        scale: the top of the scale; every score runs from 0 to ``scale`` (1, 10 or 100).
        higher_is_better: the score's good direction; a ``minimum_scores`` bound of a lower-is-better
            score is a maximum and the gate flags a rise.
        label: the short name the report's badges and sort keys use.
        gated: compared by the regression gate when the config names no ``gated_scores``.
        key_rank: position among the case matrix's key-score badges (``None``: not a key score).
        chart: charted per category (council vs baseline) in the report, in ``key_rank`` order.
        trend_label: the column head of the quality report's trend table (``None``: not trended).
        trend_rank: the position of that column (given with ``trend_label``, and only with it).
    """

    name: str = Field(min_length=1)
    description: str
    scale: float = Field(default=1.0, gt=0)
    higher_is_better: bool = True
    label: str = ""
    gated: bool = True
    key_rank: int | None = None
    chart: bool = False
    trend_label: str | None = None
    trend_rank: int | None = None

    @model_validator(mode="after")
    def _trend_column(self) -> ScoreSpec:
        if (self.trend_label is None) != (self.trend_rank is None):
            raise ValueError(f"score {self.name!r}: trend_label and trend_rank are given together or not at all")
        return self

    @property
    def short(self) -> str:
        """The report's label, the name when none is set."""
        return self.label or self.name


class ScoreRegistry(Mapping[str, ScoreSpec]):
    """Score name -> :class:`ScoreSpec`: the built-in scores first, then user scorers', each in
    registration order.

    The built-in scores are declared beside their scorers (each module of :mod:`harness.scorers.builtin`),
    passed to :meth:`declare` in the scorers' order; this layer cannot import them, so the package root hands the
    registry a loader (:meth:`load_builtins_with`) that it calls once, before the first read or user
    registration. Every reader, on any layer, therefore sees the built-in scores.
    """

    def __init__(self) -> None:
        self._specs: dict[str, ScoreSpec] = {}
        self._builtin: set[str] = set()
        self._loader: Callable[[], None] | None = None
        self._state = "unloaded"  # -> "loading" -> "loaded"

    def load_builtins_with(self, loader: Callable[[], None]) -> None:
        """Set the loader that declares the built-in scores (imports :mod:`harness.scorers.builtin`)."""
        self._loader = loader

    def _ready(self) -> dict[str, ScoreSpec]:
        if self._state == "unloaded" and self._loader is not None:
            self._state = "loading"
            try:
                self._loader()
            finally:
                self._state = "unloaded"
            self._state = "loaded"
        elif self._state == "loading":
            raise RuntimeError("the score registry was read while the built-in scorers were being declared")
        return self._specs

    def __getitem__(self, name: str) -> ScoreSpec:
        return self._ready()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ready())

    def __len__(self) -> int:
        return len(self._ready())

    def declare(self, spec: ScoreSpec) -> ScoreSpec:
        """Add a built-in score (a built-in scorer's declaration); each name is declared once."""
        if spec.name in self._specs:
            raise ValueError(f"score {spec.name!r} is declared twice")
        self._specs[spec.name] = spec
        self._builtin.add(spec.name)
        return spec

    @property
    def builtin(self) -> frozenset[str]:
        """The built-in scores' names (a user scorer may not return one)."""
        self._ready()
        return frozenset(self._builtin)

    def register(self, spec: ScoreSpec) -> ScoreSpec:
        """Add ``spec`` (a user scorer's score); a built-in name cannot be redefined."""
        old = self._ready().get(spec.name)
        if old is not None and old != spec and spec.name in self._builtin:
            raise ValueError(f"score {spec.name!r} is a built-in score and cannot be redefined")
        self._specs[spec.name] = spec
        return spec

    def spec(self, name: str) -> ScoreSpec:
        """The registered spec, or a 0-1, higher-is-better, gated one for an unregistered name."""
        found = self._ready().get(name)
        return found if found is not None else ScoreSpec(name=name, description=f"{name} (user-defined score)")

    def ranked(self, *, charted: bool = False) -> tuple[str, ...]:
        """The key scores (``key_rank`` set; with ``charted``, only those with ``chart``), in rank order."""
        chosen = [s for s in self._ready().values() if s.key_rank is not None and (s.chart or not charted)]
        return tuple(s.name for s in sorted(chosen, key=lambda s: s.key_rank or 0))

    def trended(self) -> dict[str, str]:
        """Score name -> trend-table label, for the scores with a ``trend_label``, in ``trend_rank`` order."""
        chosen = sorted(
            (s for s in self._ready().values() if s.trend_label is not None), key=lambda s: s.trend_rank or 0
        )
        return {s.name: s.trend_label or "" for s in chosen}


#: Every known score (built-in, declared by the built-in scorers; then registered by user scorers as they load).
SCORES = ScoreRegistry()


def spec(name: str) -> ScoreSpec:
    """:meth:`ScoreRegistry.spec` on :data:`SCORES`."""
    return SCORES.spec(name)


def register_score(
    name: str,
    description: str,
    *,
    scale: float = 1.0,
    higher_is_better: bool = True,
    label: str = "",
    gated: bool = True,
) -> ScoreSpec:
    """Register a score (a user scorer may, to give its score a scale, direction or label)."""
    return SCORES.register(
        ScoreSpec(
            name=name, description=description, scale=scale, higher_is_better=higher_is_better, label=label, gated=gated
        )
    )


def higher_is_better(name: str) -> bool:
    return spec(name).higher_is_better


def score_scale(name: str) -> float:
    """The top of a score's scale: 10 for rubric scores, 100 for heuristic quality, else 1."""
    return spec(name).scale


def default_tolerance(name: str) -> float:
    """The allowed drop of a gated score when none is configured: 5% of its scale."""
    return 0.05 * score_scale(name)
