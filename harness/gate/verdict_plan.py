"""What every verdict of a run is computed over, derived once per run (issue 31): the :class:`VerdictPlan`.

The >15% prediction (:mod:`harness.gate.prediction`), the arms' verdicts and leave-one-out effects
(:mod:`harness.gate.arm_verdicts`), the best member's choice (:mod:`harness.gate.best_member`) and the
remediation table (:mod:`harness.gate.remediation`) all read the same inputs; :func:`verdict_plan` derives
them once and those modules only compute from the plan:

* **Primary endpoint** (:func:`default_primary`): the configured ``primary_endpoint``; else ``correct`` when
  at least :data:`MIN_EXPECTED_FOR_CORRECT` cases have an expected answer, else ``rubric_composite``.
* **Score families** (:func:`paired_families`): per family of :data:`~harness.common.families.FAMILIES`, the
  paired (council, baseline) scores over the cases scored (finite) for both, and ``case -> category``.
* **Arms** (:func:`comparison_arms`): the run's baseline arms in :data:`ARM_ORDER`, ``best-solo`` included
  when a member was chosen on the selection split; none when the run has no ``council``.
* **Pairs**: per subject ``s`` other than the council (``best-solo`` included), the paired (council, ``s``)
  scores on the primary endpoint; :meth:`VerdictPlan.pair` gives either orientation.
* **Scales** (:attr:`VerdictPlan.scales`): each family's declared scale ``0-scale`` from its scorer's
  :class:`~harness.records.score_spec.ScoreSpec` (the bounds the verdict's betting test needs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.common.families import FAMILIES
from harness.common.model import Frozen
from harness.config import ModelPrice
from harness.gate.best_member import BEST, BestMember, best_member, best_solo_results
from harness.records.score_spec import SCORES
from harness.run.result import CaseResult
from harness.stats import PairedSample

if TYPE_CHECKING:
    from harness.config import Settings

ARM_ORDER: tuple[str, ...] = ("baseline", "chairman", "solo:", BEST, "self-consistency:", "vote")

#: With at least this many cases that have an ``expected:`` block, the default primary endpoint is
#: ``correct``; otherwise it is ``rubric_composite``.
MIN_EXPECTED_FOR_CORRECT = 10


def paired_families(
    results: Sequence[CaseResult],
    treatment: str = "council",
    control: str = "baseline",
    families: Sequence[str] = FAMILIES,
) -> tuple[dict[str, PairedSample], dict[str, str]]:
    """Per score family, the paired (council, baseline) scores over cases that have both.

    Returns the samples and ``case id -> category`` for per-category verdicts.
    """
    by: dict[tuple[str, str], dict[str, CaseResult]] = {}
    for r in results:
        by.setdefault((r.dataset, r.case_id), {})[r.subject] = r
    samples: dict[str, PairedSample] = {}
    categories: dict[str, str] = {}
    for family in families:
        c, b, ids = [], [], []
        for (dataset, case_id), subj in sorted(by.items()):
            t, k = subj.get(treatment), subj.get(control)
            if t is None or k is None or family not in t.scores or family not in k.scores:
                continue
            x, y = t.scores[family], k.scores[family]
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            key = f"{dataset}::{case_id}"
            c.append(x)
            b.append(y)
            ids.append(key)
            categories[key] = t.category or dataset
        if ids:
            samples[family] = PairedSample(council=tuple(c), baseline=tuple(b), ids=tuple(ids))
    return samples, categories


def default_primary(results: Sequence[CaseResult]) -> tuple[str, str]:
    """The default primary endpoint and why: ``correct`` when at least 10 cases have ``expected:``."""
    expected = {(r.dataset, r.case_id) for r in results if r.correctness is not None or "correct" in r.scores}
    if len(expected) >= MIN_EXPECTED_FOR_CORRECT:
        return "correct", (
            f"default: {len(expected)} cases have an expected answer (at least {MIN_EXPECTED_FOR_CORRECT})"
        )
    return "rubric_composite", (
        f"default: {len(expected)} case(s) have an expected answer "
        f"(fewer than {MIN_EXPECTED_FOR_CORRECT}), so the rubric score decides"
    )


def comparison_arms(subjects: Sequence[str]) -> list[str]:
    """The run's baseline arms in :data:`ARM_ORDER` (see the module docstring)."""

    def rank(s: str) -> int:
        return next(i for i, p in enumerate(ARM_ORDER) if s == p or (p.endswith(":") and s.startswith(p)))

    arms = [
        s for s in dict.fromkeys(subjects) if any(s == p or (p.endswith(":") and s.startswith(p)) for p in ARM_ORDER)
    ]
    return sorted(arms, key=lambda s: (rank(s), s))


class VerdictPlan(Frozen):
    """A run's verdict inputs, derived once (see the module docstring).

    Args:
        threshold: ``prediction_threshold``; selection_tag: the declared selection split's tag;
            pricing: model prices (for the arms' dollar ratios).
        primary, primary_reason: the primary endpoint and why (``configured (primary_endpoint)`` or the default's rule).
        families, categories: the paired (council, baseline) samples per score family, and ``case -> category``.
        subjects: the run's subjects in order of first appearance (``best-solo`` not included).
        choice: the best member's choice (``None`` without ``solo:`` subjects); best_solo: its ``best-solo`` results.
        arms: the baseline arms the council is compared with (``best-solo`` included).
        pairs: subject -> the paired (council, subject) samples on the primary endpoint (subjects with a pair).
    """

    threshold: float
    selection_tag: str | None
    pricing: dict[str, ModelPrice]
    primary: str
    primary_reason: str
    families: dict[str, PairedSample]
    categories: dict[str, str]
    subjects: tuple[str, ...]
    choice: BestMember | None
    best_solo: tuple[CaseResult, ...]
    arms: tuple[str, ...]
    pairs: dict[str, PairedSample]

    @property
    def scales(self) -> dict[str, tuple[float, float]]:
        """Family -> its declared scale ``(0, scale)`` (:class:`~harness.records.score_spec.ScoreSpec`), for
        the families a scorer declared; a family no scorer declared is left out, and its verdict says
        the level is not guaranteed (:func:`harness.stats.evaluate_prediction`)."""
        return {f: (0.0, SCORES[f].scale) for f in (*self.families, self.primary) if f in SCORES}

    def pair(self, treatment: str, control: str) -> PairedSample | None:
        """The paired (treatment, control) samples on the primary endpoint; one of the two is the council."""
        if treatment == "council":
            return self.pairs.get(control)
        s = self.pairs.get(treatment) if control == "council" else None
        return None if s is None else PairedSample(council=s.baseline, baseline=s.council, ids=s.ids)


def verdict_plan(
    results: Sequence[CaseResult],
    threshold: float = 0.15,
    primary_endpoint: str | None = None,
    selection_tag: str | None = None,
    pricing: Mapping[str, ModelPrice] | None = None,
) -> VerdictPlan:
    """The :class:`VerdictPlan` of ``results`` (``primary_endpoint=None``: :func:`default_primary`)."""
    if primary_endpoint:
        primary, why = primary_endpoint, "configured (primary_endpoint)"
    else:
        primary, why = default_primary(results)
    families, categories = paired_families(results)
    choice = best_member(results, primary, selection_tag)
    best_solo = tuple(best_solo_results(results, choice))
    subjects = tuple(dict.fromkeys(r.subject for r in results))
    every = [*results, *best_solo]
    has_council = "council" in subjects
    arms = tuple(comparison_arms([r.subject for r in every])) if has_council else ()
    pairs: dict[str, PairedSample] = {}
    for s in (*subjects, *((BEST,) if best_solo else ())) if has_council else ():
        sample = paired_families(every, "council", s, families=(primary,))[0].get(primary)
        if s != "council" and sample is not None:
            pairs[s] = sample
    return VerdictPlan(
        threshold=threshold,
        selection_tag=selection_tag,
        pricing=dict(pricing or {}),
        primary=primary,
        primary_reason=why,
        families=families,
        categories=categories,
        subjects=subjects,
        choice=choice,
        best_solo=best_solo,
        arms=arms,
        pairs=pairs,
    )


def plan_for_run(results: Sequence[CaseResult], settings: Settings) -> VerdictPlan:
    """:func:`verdict_plan` with the configuration's threshold, primary endpoint, selection tag and prices."""
    return verdict_plan(
        results, settings.prediction_threshold, settings.primary_endpoint, settings.selection_tag, settings.pricing
    )


def plan_from_config(results: Sequence[CaseResult], config: Mapping[str, Any]) -> VerdictPlan:
    """:func:`verdict_plan` with the settings a run's manifest recorded (``prediction_threshold``,
    ``primary_endpoint``, ``selection_tag``, ``pricing``; a missing key takes the default)."""
    prices = {k: ModelPrice.model_validate(v) for k, v in (config.get("pricing") or {}).items()}
    return verdict_plan(
        results,
        float(config.get("prediction_threshold", 0.15)),
        config.get("primary_endpoint"),
        config.get("selection_tag"),
        prices,
    )
