"""The report's header strip (what ran, where, when, for how long, at what cost) and gate banner
(passed or failed, and why: the same reasons as ``summary.json``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.gate.baselines import Comparison
from harness.report.formatting import fmt_duration, parse_time, status_label
from harness.report.view_records import (
    GATE_REASONS_SHOWN,
    ComparisonSummary,
    GateView,
    HeaderView,
    KeyValue,
    ModelRow,
    StatusCount,
    SubjectCounts,
)
from harness.run.runs import Run

if TYPE_CHECKING:
    from harness.gate.regression import GateOutcome

STATUSES = ("passed", "failed", "error", "awaiting_review")
#: Verdicts of objective answers (harness.metrics.correctness), counted apart in the gate banner.
VERDICTS = ("correct", "wrong", "ambiguous", "unanswered")
#: Settings shown in the header, when the manifest's config has them.
CONFIG_HIGHLIGHTS = (
    "chairman",
    "baseline",
    "judge",
    "seed",
    "answer_max_tokens",
    "review_max_tokens",
    "final_answer_max_tokens",
    "synthesis_max_tokens",
    "quality_tier",
    "grounding_threshold",
    "rubric_scoring",
    "peer_rubric",
    "safety_gate",
    "cache_mode",
    "base_url",
)


def header_view(run: Run, subjects: Sequence[str]) -> HeaderView:
    m = run.manifest
    config = m.config or {}
    specs = [s for s in config.get("models") or [] if isinstance(s, Mapping)]
    ids = [str(s.get("id", "")) for s in specs]
    roles: dict[str, list[str]] = defaultdict(list)
    for role in ("chairman", "baseline", "judge"):
        name = config.get(role)
        if not isinstance(name, str):
            continue
        # resolved as Settings.find_member does: a member id first, else the first member with that model
        member = name if name in ids else next((str(s.get("id")) for s in specs if s.get("model") == name), name)
        roles[member].append(role)
    sha = {f.name: f.sha256[:12] for f in m.models}
    models = [
        ModelRow(
            member=str(s.get("id", "")),
            model=str(s.get("model", "")),
            provider=str(s.get("provider", "")),
            roles=", ".join(roles.get(str(s.get("id", "")), [])),
            sha256=sha.get(str(s.get("model", "")), ""),
        )
        for s in specs
    ]
    models += [
        ModelRow(member=name, model=name, provider="", roles=", ".join(rs), sha256=sha.get(name, ""))
        for name, rs in roles.items()
        if name not in ids
    ]
    listed = {r.model for r in models}
    models += [
        ModelRow(member="", model=f.name, provider="local", sha256=f.sha256[:12])
        for f in m.models
        if f.name not in listed
    ]
    highlights = tuple(KeyValue(key=k, value=_plain(config[k])) for k in CONFIG_HIGHLIGHTS if config.get(k) is not None)
    start, end = parse_time(m.started_at), parse_time(m.finished_at)
    duration = (end - start).total_seconds() if start and end else None
    tokens = [r.transcript.tokens for r in run.results if r.transcript is not None]
    return HeaderView(
        run_id=m.run_id,
        harness_version=m.harness_version,
        python=m.python,
        git_revision=(m.git_revision or "unknown")[:10],
        git_dirty=bool(m.git_dirty),
        started=m.started_at,
        finished=m.finished_at or "not finished",
        duration=fmt_duration(duration),
        datasets=", ".join(m.datasets) or "none",
        subjects=", ".join(subjects),
        models=tuple(models),
        config=highlights,
        tokens_in=sum(t[0] for t in tokens),
        tokens_out=sum(t[1] for t in tokens),
        cache_hits=m.cache_hits,
        cache_misses=m.cache_misses,
    )


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def gate_view(
    run: Run, subjects: Sequence[str], comparisons: Sequence[Comparison], outcome: GateOutcome | None = None
) -> GateView:
    """The banner; ``outcome``: the gate under the config's rule (default: :func:`gate_outcome` under the default)."""
    from harness.gate.regression import gate_outcome

    results = run.results
    counts: dict[str, dict[str, int]] = {s: dict.fromkeys(STATUSES, 0) for s in subjects}
    for r in results:
        counts.setdefault(r.subject, dict.fromkeys(STATUSES, 0))[r.status] += 1
    verdicts: dict[str, dict[str, int]] = {s: dict.fromkeys(VERDICTS, 0) for s in counts}
    for r in results:
        if r.correctness is not None:
            verdicts[r.subject][r.correctness.outcome] += 1
    per_subject = tuple(
        SubjectCounts(
            subject=s,
            total=sum(c.values()),
            counts=tuple(StatusCount(status=st, label=status_label(st), count=c[st]) for st in STATUSES if c[st]),
            answers=tuple(
                StatusCount(status=f"answer-{v}", label=v, count=verdicts[s][v]) for v in VERDICTS if verdicts[s][v]
            ),
        )
        for s, c in counts.items()
    )
    summary = None
    if comparisons:
        by = {
            st: sum(len(c.by_status(st)) for c in comparisons)
            for st in ("regressed", "improved", "unchanged", "new", "missing")
        }
        gated = sorted({s for c in comparisons for s in c.gated_scores})
        summary = ComparisonSummary(
            dataset=", ".join(c.dataset for c in comparisons),
            **by,
            gated_scores=", ".join(gated) or "none",
        )
    outcome = outcome or gate_outcome(run, comparisons)
    n_failed = sum(r.status == "failed" for r in results)
    n_error = sum(r.status == "error" for r in results)
    parts = [f"{len(results)} result(s)", f"{n_failed} failed", f"{n_error} error(s)"]
    if summary is not None:
        parts += [f"{summary.regressed} regression(s)", f"{summary.improved} improvement(s) vs baseline"]
    if any(c.noise_aware for c in comparisons):  # issue 27: which changes the noise explains
        within = sum(c.counts()["cases_within_noise"] for c in comparisons)
        parts.append(f"{within} case(s) changed within noise (noise-aware gate)")
    parts += [f"{outcome.counts[k]} {k}" for k in ("missing", "unreadable") if outcome.counts[k]]
    parts += [
        f"{n} {k.replace('_', ' ')}(s) not counted"
        for k in ("known_failure", "tolerated_failure")
        if (n := outcome.counts.get(k, 0))
    ]
    if outcome.scoring.errors:
        parts.append(outcome.scoring.words())
    state = outcome.completeness
    if state is not None and not state.complete:
        parts.append(state.words())
    word = {"pass": "Gate passed", "fail": "Gate failed", "incomplete": "Gate incomplete"}[outcome.outcome]
    headline = word + ": " + ", ".join(parts)
    reasons = tuple(f"{r.dataset} :: {r.message}" for r in outcome.reasons)
    return GateView(
        passed=outcome.outcome == "pass",
        headline=headline,
        rule=outcome.words,
        subjects=per_subject,
        reasons=reasons[:GATE_REASONS_SHOWN],
        more_reasons=reasons[GATE_REASONS_SHOWN:],
        comparison=summary,
    )
