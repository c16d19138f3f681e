"""The ">15% better" verdict (seed 002, prediction 1).

Seed 002 states the prediction as ``average_quality_consensus > 1.15 x average_quality_single_model``.
Over paired cases this is decided in the **difference form**: the council is more than ``threshold``
better exactly when ``mean(council - (1 + threshold) * baseline) > 0``. The verdict comes from the
exact (Monte-Carlo above 14 pairs) paired sign-flip test of that difference and the interval that
inverts it (:mod:`harness.stats.signflip`), which is defined for every sample, a baseline of all zeros
included. The rule, in order of precedence (:func:`evaluate_prediction`, :func:`verdict_for`):

* ``insufficient_data`` when a scope has fewer than ``MIN_INFORMATIVE_PAIRS`` (10) informative pairs
  (pairs with ``council != (1 + threshold) * baseline``);
* ``supported`` when the one-sided test at level ``(1 - confidence) / 2`` (2.5% for 95%) rejects
  "not more than ``threshold`` better"; ``refuted`` when the other side rejects "at least
  ``threshold`` better"; ``inconclusive`` otherwise. The tests (:mod:`harness.stats.boundary_tests`,
  issue 27): for a binary family (0/1 values) the exact unconditional test on the discordant pairs,
  which keeps its level without assuming symmetric differences; for scores the sign-flip interval
  (``low > 0`` supported, ``high < 0`` refuted; exact under symmetry) **and** the skewness-corrected
  t-test (Hall 1992) **and**, for a family whose scale is declared (``scales``), the betting test of
  :mod:`harness.stats.betting` on the bounds that scale implies; each side is decided only when all
  of them reject, so the level is at most the smallest of theirs in every world: at most
  ``(1 - confidence) / 2`` for every distribution of the scores on the declared scale (the betting
  test's proof). A family without a declared scale, or with a value outside it, keeps the first two
  tests and its verdict says the level is not guaranteed. The sign-flip interval is shown
  either way; an ``insufficient_data`` or ``refuted`` verdict states the improvement its ``n`` could
  detect (:mod:`harness.stats.power`).

One **primary** endpoint, overall, is tested at the configured confidence; every other family and
every per-category verdict is **secondary** (exploratory) and its interval is Bonferroni-adjusted over
the ``m`` secondary verdicts. The ratio of means minus one (:func:`relative_improvement`) is the effect
size shown beside the verdict, with the ratio interval that inverts the same test.

The p-values answer other questions (:mod:`harness.stats.paired`): Wilcoxon signed-rank and Holm's
step-down correction serve the regression gate, and McNemar's exact test is printed for binary families
(``correct``) on their own 0/1 values. None of them decides the prediction.

Conventions: pairs where either score is NaN are dropped and counted (``n_dropped``); anything that
cannot be computed is NaN with a ``note`` or ``reason`` saying why, never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Literal, TypeVar

import numpy as np
from pydantic import model_validator

from harness.common.formatting import fmt_bound, fmt_signed, p_equals
from harness.common.model import Frozen
from harness.stats import betting, boundary_tests, power, signflip
from harness.stats.artifacts import ArmArtifacts
from harness.stats.paired import mcnemar_exact, paired_arrays, relative_improvement, relative_improvement_note

T = TypeVar("T")
Verdict = Literal["supported", "refuted", "inconclusive", "insufficient_data"]


class PairedSample(Frozen):
    """Paired per-challenge scores of one score family.

    Args:
        council: the council's score per challenge.
        baseline: the single-model baseline's score per challenge, same order.
        ids: challenge ids in the same order (needed for per-category verdicts).
        council_pass, baseline_pass: optional paired pass/fail outcomes, for McNemar's test.
    """

    council: tuple[float, ...]
    baseline: tuple[float, ...]
    ids: tuple[str, ...] | None = None
    council_pass: tuple[bool, ...] | None = None
    baseline_pass: tuple[bool, ...] | None = None

    @model_validator(mode="after")
    def _same_length(self) -> PairedSample:
        n = len(self.council)
        for name in ("baseline", "ids", "council_pass", "baseline_pass"):
            value = getattr(self, name)
            if value is not None and len(value) != n:
                raise ValueError(f"{name} has {len(value)} entries, council has {n}: paired samples must align")
        if (self.council_pass is None) != (self.baseline_pass is None):
            raise ValueError("give both council_pass and baseline_pass, or neither")
        return self

    def subset(self, indices: Sequence[int]) -> PairedSample:
        """The sample restricted to the given positions."""

        def pick(values: tuple[T, ...]) -> tuple[T, ...]:
            return tuple(values[i] for i in indices)

        return PairedSample(
            council=pick(self.council),
            baseline=pick(self.baseline),
            ids=None if self.ids is None else pick(self.ids),
            council_pass=None if self.council_pass is None else pick(self.council_pass),
            baseline_pass=None if self.baseline_pass is None else pick(self.baseline_pass),
        )


#: Fewer informative pairs than this in a scope (pairs where ``council != (1 + threshold) * baseline``,
#: the only ones that carry evidence in the difference form) and the scope's verdict is
#: ``insufficient_data``: never "supported" or "refuted" from a handful of cases.
MIN_INFORMATIVE_PAIRS = 10

#: Score families whose values are 0 or 1 (McNemar's test applies to them, on those values).
BINARY_FAMILIES: tuple[str, ...] = ("correct",)

Role = Literal["primary", "secondary"]


class PredictionVerdict(Frozen):
    """The ">threshold better" verdict for one score family in one scope (overall or a category).

    Args:
        family: the score family's name; scope: ``"overall"`` or the category.
        role: ``primary`` (the declared endpoint, overall) or ``secondary`` (exploratory, multiplicity-adjusted).
        n: pairs used; n_dropped: NaN pairs dropped; n_informative: pairs with ``d != 0``.
        mean_council, mean_baseline: the two means.
        mean_difference: ``mean(d)``, ``d = council - (1 + threshold) * baseline``: the deciding quantity.
        diff_low, diff_high: its sign-flip interval at ``confidence`` (infinite when unreachable).
        relative_improvement: the effect size, ``mean_council / mean_baseline - 1`` (NaN for a baseline mean <= 0).
        ci_low, ci_high: the same interval expressed on the relative improvement (ratio interval minus one),
            NaN or infinite where the data cannot define it.
        confidence: the two-sided level of both intervals (adjusted for secondary verdicts).
        method: the interval method in words (:func:`harness.stats.signflip.method_name`).
        p_value: one-sided p of "the council is not more than ``threshold`` better": the exact test's for a
            binary family; for scores the largest of the sign-flip, skewness-corrected t and betting p
            (all must reject).
        mcnemar_p: McNemar's exact p on the family's own 0/1 values, binary families only (else ``None``).
        threshold: the relative improvement the prediction claims (0.15 = 15%).
        verdict: see :func:`verdict_for`; ``insufficient_data`` below :data:`MIN_INFORMATIVE_PAIRS`.
        reason: why the verdict is ``insufficient_data`` ("" otherwise).
        warning: a sign the scorer may be broken (every answer of both subjects scored the same), else "".
        note: other caveats ("" when all is well).
        detectable: the smallest true relative improvement this test supports with 80% power at its
            ``n`` (:mod:`harness.stats.power`; ``inf`` when none is, NaN when not computed); stated in
            the sentence of an ``insufficient_data`` or ``refuted`` verdict.
        summary: the verdict in words first, the statistics after.
    """

    family: str
    scope: str = "overall"
    role: Role = "secondary"
    n: int
    n_dropped: int = 0
    n_informative: int = 0
    mean_council: float
    mean_baseline: float
    mean_difference: float = math.nan
    diff_low: float = math.nan
    diff_high: float = math.nan
    relative_improvement: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    method: str = ""
    p_value: float = math.nan
    mcnemar_p: float | None = None
    threshold: float = 0.15
    verdict: Verdict
    reason: str = ""
    warning: str = ""
    note: str = ""
    detectable: float = math.nan
    summary: str


class PredictionReport(Frozen):
    """The primary verdict, then the secondary ones overall and per category.

    Args:
        threshold: the claimed improvement; confidence: the primary interval's level.
        n_resamples, seed: Monte-Carlo sign patterns above :data:`harness.stats.signflip.EXACT_MAX_PAIRS` pairs.
        primary: the primary endpoint's family name; primary_reason: why it is the primary one.
        n_secondary: secondary verdicts that reached the decision stage (``m`` of the Bonferroni adjustment).
        secondary_confidence: the level of each secondary interval, ``1 - (1 - confidence) / m``.
        overall: one verdict per family over every case, the primary one first.
        by_category: category -> one verdict per family over that category's cases (only with 2+ categories).
        arms: truncation and extraction-failure counts per subject (:mod:`harness.stats.artifacts`).
        artifact_warning: set when the arms differ in either rate by more than 5 points ("" otherwise).
    """

    threshold: float
    confidence: float
    n_resamples: int
    seed: int
    primary: str = ""
    primary_reason: str = ""
    n_secondary: int = 0
    secondary_confidence: float = 0.95
    overall: tuple[PredictionVerdict, ...]
    by_category: dict[str, tuple[PredictionVerdict, ...]] = {}
    arms: tuple[ArmArtifacts, ...] = ()
    artifact_warning: str = ""

    @property
    def headline(self) -> PredictionVerdict | None:
        """The primary verdict (``None`` only for an empty report)."""
        return next((v for v in self.overall if v.role == "primary"), None)

    def every(self) -> list[PredictionVerdict]:
        """Every verdict: overall first, then per category in sorted order."""
        return [*self.overall, *(v for c in sorted(self.by_category) for v in self.by_category[c])]


def verdict_for(diff_low: float, diff_high: float, n_informative: int | None = None) -> Verdict:
    """The verdict from the interval of ``mean(council - (1 + threshold) * baseline)``.

    Precedence: ``insufficient_data`` when ``n_informative < MIN_INFORMATIVE_PAIRS`` (given);
    then ``supported`` when ``diff_low > 0`` (the one-sided sign-flip test rejects "not more than
    ``threshold`` better" at level ``(1 - confidence) / 2``); ``refuted`` when ``diff_high < 0``
    (it rejects "at least ``threshold`` better" at the same level); else ``inconclusive``.
    NaN bounds compare false, so an undefined interval is ``inconclusive``.
    """
    if n_informative is not None and n_informative < MIN_INFORMATIVE_PAIRS:
        return "insufficient_data"
    if diff_low > 0:
        return "supported"
    if diff_high < 0:
        return "refuted"
    return "inconclusive"


#: Score families in words, for the verdict sentences.
FAMILY_WORDS: dict[str, str] = {
    "correct": "correctness",
    "rubric_composite": "rubric score",
    "heuristic_quality": "heuristic quality",
}

VERDICT_WORDS: dict[str, str] = {
    "supported": "supported",
    "refuted": "refuted",
    "inconclusive": "not enough evidence either way",
    "insufficient_data": "insufficient data",
}


def family_words(family: str) -> str:
    """A score family's name in words (``correct`` -> ``correctness``)."""
    return FAMILY_WORDS.get(family, family.replace("_", " "))


def verdict_headline(v: PredictionVerdict, treatment: str = "council", control: str = "single model") -> str:
    """The verdict in words.

    ``council vs single model on correctness: +300.0% (n=55), better by more than 15%: supported``.
    """
    scope = "" if v.scope == "overall" else f" [{v.scope}]"
    return (
        f"{treatment} vs {control} on {family_words(v.family)}{scope}: {fmt_bound(v.relative_improvement)} "
        f"(n={v.n}), better by more than {v.threshold:.0%}: {VERDICT_WORDS[v.verdict]}"
    )


def detectable_words(v: PredictionVerdict) -> str:
    """What the verdict's test could have detected at its ``n`` ("" when not computed)."""
    if math.isnan(v.detectable):
        return ""
    if math.isinf(v.detectable):
        return f"at n={v.n} no true improvement is detectable with 80% power"
    return f"at n={v.n} only a true improvement of {fmt_bound(v.detectable)} or more is detectable with 80% power"


def verdict_statistics(v: PredictionVerdict, treatment: str = "council") -> str:
    """The statistics behind the verdict (the reason, for ``insufficient_data``); every verdict but
    ``supported`` also says what its ``n`` could have detected (an ``inconclusive`` one too: with the
    betting test a score verdict at n = 55 needs a true gain of about +50%, so "inconclusive" is often
    all the run could have said)."""
    power_words = detectable_words(v) if v.verdict != "supported" else ""
    if v.verdict == "insufficient_data":
        return "; ".join(w for w in (v.reason, power_words) if w)
    stats = (
        f"mean({treatment} - {1 + v.threshold:.3g} x baseline) = {fmt_signed(v.mean_difference)}, "
        f"{v.confidence:.4g} interval {fmt_signed(v.diff_low)} to {fmt_signed(v.diff_high)}, {v.method}, "
        f"one-sided {p_equals(v.p_value)}; effect interval {fmt_bound(v.ci_low)} to {fmt_bound(v.ci_high)}"
    )
    if v.mcnemar_p is not None:
        stats += f"; McNemar {p_equals(v.mcnemar_p)}"
    if power_words:
        stats += f"; {power_words}"
    return stats


def verdict_sentence(v: PredictionVerdict, treatment: str = "council", control: str = "single model") -> str:
    """The verdict in words first, the statistics after in brackets."""
    return f"{verdict_headline(v, treatment, control)} ({verdict_statistics(v, treatment)})"


def _detectable(ratio: float | None) -> float:
    """The detectable relative improvement ``ratio - 1`` (``inf`` when none is detectable)."""
    return math.inf if ratio is None or not math.isfinite(ratio) else ratio - 1.0


def _same_score_warning(family: str, x: np.ndarray, y: np.ndarray) -> str:
    values = np.concatenate([x, y])
    if values.size >= 2 and np.ptp(values) == 0:
        return (
            f"every answer of both subjects got the same {family} score ({values[0]:g}): "
            "the scorer or judge may not be discriminating"
        )
    return ""


def _on_scale(family: str, x: np.ndarray, y: np.ndarray, scale: tuple[float, float] | None, notes: list[str]) -> bool:
    """Whether every score lies on ``family``'s declared ``scale`` (the betting test's bounds hold); if
    not, a note in ``notes`` saying that the verdict's level is not guaranteed, and why."""
    if scale is None:
        notes.append(
            f"no declared scale for {family}: decided by the sign-flip and skewness-corrected tests alone, "
            "whose level is not guaranteed for skewed or heavy-tailed scores"
        )
        return False
    values = np.concatenate([x, y])
    if values.size and (float(values.min()) < scale[0] or float(values.max()) > scale[1]):
        notes.append(
            f"{family} has values outside its declared scale {scale[0]:g}-{scale[1]:g}: decided without the "
            "betting test, so the level is not guaranteed for skewed or heavy-tailed scores"
        )
        return False
    return True


def _decide(
    family: str,
    scope: str,
    role: Role,
    sample: PairedSample,
    threshold: float,
    confidence: float,
    n_resamples: int,
    seed: int,
    binary: bool,
    scale: tuple[float, float] | None = None,
) -> PredictionVerdict:
    x, y, dropped = paired_arrays(sample.council, sample.baseline)
    d = signflip.difference_scores(x, y, threshold)
    n_inf = int(np.count_nonzero(d))
    notes = [f"{dropped} NaN pair(s) dropped"] if dropped else []
    exact01 = binary and bool(np.all((x == 0) | (x == 1)) and np.all((y == 0) | (y == 1)))
    bounded = exact01 or _on_scale(family, x, y, scale, notes)
    top = scale[1] if bounded and scale is not None and scale[0] == 0 else None
    mc = None
    if binary and x.size:
        mc = mcnemar_exact(tuple(x == 1), tuple(y == 1)).p_value
    verdict = partial(
        PredictionVerdict,
        family=family,
        scope=scope,
        role=role,
        n=int(x.size),
        n_dropped=dropped,
        n_informative=n_inf,
        mean_council=float(x.mean()) if x.size else math.nan,
        mean_baseline=float(y.mean()) if y.size else math.nan,
        relative_improvement=float(relative_improvement(x, y)) if x.size else math.nan,
        mcnemar_p=mc,
        threshold=threshold,
        warning=_same_score_warning(family, x, y),
        confidence=confidence,
    )
    if n_inf < MIN_INFORMATIVE_PAIRS:
        reason = (
            f"only {n_inf} informative pair(s) (cases where council != {1 + threshold:.3g} x baseline); "
            f"at least {MIN_INFORMATIVE_PAIRS} are needed to decide"
        )
        if exact01 and x.size:
            det = power.binary_detectable_ratio(int(x.size), float(y.mean()), threshold, confidence)
        else:
            det = power.score_detectable_ratio(
                int(x.size),
                float(y.mean()) if y.size else math.nan,
                float(d.std(ddof=1)) if d.size > 1 else math.nan,
                threshold,
                confidence,
                scale=top,
            )
        v = verdict(
            mean_difference=float(d.mean()) if d.size else math.nan,
            ci_low=math.nan,
            ci_high=math.nan,
            verdict="insufficient_data",
            reason=reason,
            note="; ".join(notes),
            summary="",
            detectable=_detectable(det),
        )
        return v.model_copy(update={"summary": verdict_sentence(v)})
    test = signflip.sign_flip_test(d, confidence=confidence, n_resamples=n_resamples, seed=seed)
    r_low, r_high, r_note = signflip.ratio_interval(x, y, confidence=confidence, n_resamples=n_resamples, seed=seed)
    notes += [n for n in (relative_improvement_note(y), r_note) if n]
    side = (1.0 - confidence) / 2.0
    if exact01:
        exact = boundary_tests.binary_boundary_test(x, y, threshold)
        p_sup = exact.p_greater
        method = (
            f"exact unconditional test on the discordant pairs ({exact.n10} council only, {exact.n01} "
            f"baseline only, {exact.n11} both; sup over the nuisance); interval: {test.method}"
        )
        decided: Verdict = "supported" if p_sup <= side else "refuted" if exact.p_less <= side else "inconclusive"
        ratio = power.binary_detectable_ratio(int(x.size), float(y.mean()), threshold, confidence)
    else:
        skew = boundary_tests.score_boundary_test(d)
        method = (
            f"{test.method} and skewness-corrected t-test (Hall; skewness {skew.skewness:+.2f}, "
            f"one-sided p {skew.p_greater:.3g} / {skew.p_less:.3g})"
        )
        bet_greater = bet_less = 0.0
        if bounded and scale is not None:
            low, high = betting.difference_bounds(scale, threshold)
            bet = betting.betting_test(d, low, high, side, seed=seed)
            bet_greater, bet_less = bet.p_greater, bet.p_less
            method += (
                f" and betting test on the declared scale {scale[0]:g}-{scale[1]:g} (e-values "
                f"{bet.e_greater:.3g} / {bet.e_less:.3g}, need {1 / side:.3g}), all three must reject"
            )
        else:
            method += ", both must reject"
        p_sup = max(test.p_value, skew.p_greater, bet_greater)  # the intersection rule rejects when all do
        decided = verdict_for(
            test.low if max(skew.p_greater, bet_greater) <= side else -math.inf,
            test.high if max(skew.p_less, bet_less) <= side else math.inf,
            n_inf,
        )
        sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
        ratio = power.score_detectable_ratio(int(x.size), float(y.mean()), sd, threshold, confidence, scale=top)
    v = verdict(
        mean_difference=test.mean,
        diff_low=test.low,
        diff_high=test.high,
        method=method,
        p_value=p_sup,
        ci_low=r_low - 1.0,
        ci_high=r_high - 1.0,
        detectable=_detectable(ratio),
        verdict=decided,
        note="; ".join(dict.fromkeys(notes)),
        summary="",
    )
    return v.model_copy(update={"summary": verdict_sentence(v)})


UNCATEGORIZED = "uncategorized"


def evaluate_prediction(
    families: Mapping[str, PairedSample],
    threshold: float = 0.15,
    by_category: Mapping[str, str] | None = None,
    *,
    primary: str | None = None,
    primary_reason: str = "",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    binary_families: Sequence[str] = BINARY_FAMILIES,
    scales: Mapping[str, tuple[float, float]] | None = None,
) -> PredictionReport:
    """Test "the council is more than ``threshold`` better than the single model" per score family.

    The rule, in order:

    1. Per scope (overall, each category) and family, ``d_i = council_i - (1 + threshold) * baseline_i``
       over the pairs without NaN (:func:`harness.stats.signflip.difference_scores`).
    2. Fewer than :data:`MIN_INFORMATIVE_PAIRS` pairs with ``d_i != 0``: ``insufficient_data``.
    3. The **primary** verdict (family ``primary``, overall) uses the sign-flip interval of the centre of
       ``d`` at ``confidence`` (:func:`harness.stats.signflip.sign_flip_test`): ``supported`` when its low end
       is > 0, ``refuted`` when its high end is < 0, else ``inconclusive`` (:func:`verdict_for`); a
       binary family decides by the exact test instead, and a score family needs the skewness-corrected
       t-test and (with a declared scale) the betting test to reject on the same side as well (module
       docstring).
    4. Every other verdict is **secondary** (exploratory). With ``m`` secondary verdicts that passed
       step 2, each uses the same interval at the Bonferroni level ``1 - (1 - confidence) / m``, so the
       chance of any false "supported" (or false "refuted") among them is at most ``(1 - confidence) / 2``.
    5. The effect size beside each verdict is the ratio of means minus one, with the interval of the
       ratio that inverts the same test at the same level (:func:`harness.stats.signflip.ratio_interval`).

    Args:
        families: score family name -> its paired per-case scores (higher is better).
        threshold: the claimed relative improvement (seed 002: 0.15).
        by_category: case id -> category; with two or more categories every category also gets its
            (secondary) verdicts (cases missing from the mapping go to ``"uncategorized"``). Requires ``ids``.
        primary: the primary endpoint (default: the first family); a primary with no pairs gets an
            ``insufficient_data`` verdict saying so.
        primary_reason: why this endpoint is primary, for the report.
        confidence: the primary interval's two-sided level.
        n_resamples: random sign patterns per test above the exact limit.
        seed: seed of those patterns (the same for every family and scope).
        binary_families: families whose 0/1 values get McNemar's exact test.
        scales: family -> its declared ``(low, high)`` scale (the scorer's declaration): a score family
            listed here also needs the betting test to reject (:mod:`harness.stats.betting`), which
            holds the level for every distribution on that scale; one not listed keeps the other two
            tests and its verdict notes that the level is not guaranteed.
    """
    primary = primary or next(iter(families), "")
    scopes: list[tuple[str, Mapping[str, PairedSample]]] = [("overall", families)]
    if by_category is not None:
        groups: dict[str, dict[str, list[int]]] = {}
        for family, sample in families.items():
            if sample.ids is None:
                raise ValueError(f"family {family!r} has no case ids: per-category verdicts need them")
            for i, cid in enumerate(sample.ids):
                groups.setdefault(by_category.get(cid, UNCATEGORIZED), {}).setdefault(family, []).append(i)
        if len(groups) > 1:
            scopes += [(cat, {f: families[f].subset(idx) for f, idx in groups[cat].items()}) for cat in sorted(groups)]
    jobs = [(scope, family, sample) for scope, fams in scopes for family, sample in fams.items()]

    def is_primary(scope: str, family: str) -> bool:
        return scope == "overall" and family == primary

    def decidable(sample: PairedSample) -> bool:
        x, y, _ = paired_arrays(sample.council, sample.baseline)
        return int(np.count_nonzero(signflip.difference_scores(x, y, threshold))) >= MIN_INFORMATIVE_PAIRS

    m = sum(1 for scope, family, sample in jobs if not is_primary(scope, family) and decidable(sample))
    secondary_confidence = 1.0 - (1.0 - confidence) / max(m, 1)
    decided: dict[str, list[PredictionVerdict]] = {}
    for scope, family, sample in jobs:
        role: Role = "primary" if is_primary(scope, family) else "secondary"
        level = confidence if role == "primary" else secondary_confidence
        decided.setdefault(scope, []).append(
            _decide(
                family,
                scope,
                role,
                sample,
                threshold,
                level,
                n_resamples,
                seed,
                family in binary_families,
                (scales or {}).get(family),
            )
        )
    overall = decided.get("overall", [])
    if primary and primary not in families:
        missing = PredictionVerdict(
            family=primary,
            role="primary",
            n=0,
            mean_council=math.nan,
            mean_baseline=math.nan,
            relative_improvement=math.nan,
            ci_low=math.nan,
            ci_high=math.nan,
            threshold=threshold,
            verdict="insufficient_data",
            confidence=confidence,
            reason=f"no case has a {primary} score for both subjects",
            summary="",
        )
        overall.insert(0, missing.model_copy(update={"summary": verdict_sentence(missing)}))
    overall.sort(key=lambda v: v.role != "primary")
    return PredictionReport(
        threshold=threshold,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        primary=primary,
        primary_reason=primary_reason,
        n_secondary=m,
        secondary_confidence=secondary_confidence,
        overall=tuple(overall),
        by_category={s: tuple(vs) for s, vs in decided.items() if s != "overall"},
    )
