"""The report's drill-down: per case, every subject's transcript, checks, scores and the blocks of
fields the report does not lay out itself (judge verdicts, extraction, votes, fields added later)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from pydantic import BaseModel

from harness.metrics.tier1 import consensus_band
from harness.records.transcript import Transcript
from harness.report.bars import bar
from harness.report.blocks import empty, leaf, make_block
from harness.report.formatting import case_anchor, fmt_score, score_scale, status_label
from harness.report.view_records import (
    AggregateView,
    AnswerView,
    Block,
    CallView,
    CaseDetail,
    CheckView,
    KeyValue,
    MatrixRow,
    ReviewItem,
    ReviewView,
    RubricRow,
    SubjectDetail,
)
from harness.run.result import CaseResult
from harness.scorers.builtin import BY_NAME
from harness.scorers.details import DETAIL_TYPES

#: CaseResult / Transcript fields the report lays out itself; every other field that is set (scoring
#: errors and calls, fields added later) is shown as a generic block, and so is every scorer's detail
#: (judge verdicts, extracted answers, reviewers' verdicts, user scorers' details: :func:`_detail_blocks`).
_KNOWN_RESULT_FIELDS = frozenset(
    {
        "case_id",
        "dataset",
        "subject",
        "category",
        "evaluation_mode",
        "status",
        "transcript",
        "details",
        "scores",
        "checks",
        "error",
        "tags",
        "ground_truth",
        "expected",
    }
)
#: Scorer details the report lays out itself (the Tier 1 panel).
_KNOWN_DETAILS = frozenset({"quality_metrics"})
_KNOWN_TRANSCRIPT_FIELDS = frozenset(
    {
        "subject",
        "query",
        "answers",
        "label_to_member",
        "reviews",
        "aggregate",
        "synthesis",
        "final_answer",
        "chairman",
        "calls",
        "errors",
        "duration_s",
        "voting",
    }
)
#: Cases whose transcripts the report carries. Beyond it (a 10,000-case run) the report keeps the
#: ones that need a look first (failing, regressed, subjects differ, awaiting review), then the
#: others in matrix order; every case stays in the matrix, results.jsonl and ``export``.
DETAIL_LIMIT = 300


def _detail_blocks(r: CaseResult) -> list[Block]:
    """One block per scorer detail, each with its scorer's summary line (:func:`block_summary`): the
    built-in ones in :data:`~harness.scorers.details.DETAIL_TYPES` order, then user scorers' (titled
    ``module:function``)."""
    order = {name: i for i, name in enumerate(DETAIL_TYPES)}
    out = []
    for name in sorted(r.details, key=lambda n: (order.get(n, len(order)), n)):
        value = r.details[name]
        if name in _KNOWN_DETAILS or empty(value):
            continue
        block = make_block(name.replace("_", " ") if name in order else name, value, block_summary(name, value))
        if block is not None:
            out.append(block)
    return out


def _blocks(obj: BaseModel, known: frozenset[str], prefix: str = "") -> list[Block]:
    out = []
    for name in type(obj).model_fields:
        if name in known:
            continue
        value = getattr(obj, name)
        if empty(value):
            continue
        block = make_block(prefix + name.replace("_", " "), value, block_summary(name, value))
        if block is not None:
            out.append(block)
    return out


def block_summary(name: str, value: Any) -> str:
    """The one-line gist of a drill-down block (its rows stay one click away): a built-in scorer's
    detail is summarised by its scorer (:meth:`~harness.scorers.builtin.BuiltinScorer.summarise`), the
    scoring calls by their count, time and tokens; any other block has none."""
    scorer = BY_NAME.get(name)
    if scorer is not None:
        return scorer.summarise(value)
    if name == "scoring_calls" and isinstance(value, Sequence):
        seconds = sum(getattr(c, "latency_s", 0.0) or 0.0 for c in value)
        tokens_in = sum(getattr(c, "tokens_in", 0) or 0 for c in value)
        tokens_out = sum(getattr(c, "tokens_out", 0) or 0 for c in value)
        return f"{len(value)} call(s), {seconds:.1f} s, tokens {tokens_in} in / {tokens_out} out"
    return ""


def _tier1(r: CaseResult) -> tuple[str, str]:
    q = r.quality_metrics
    if q is None:
        return "", ""
    c, sas = q.core, q.core.synthesis_attribution
    comps = c.deliberation_components
    lines = [
        f"Consensus Strength: {bar(c.consensus_strength)} {consensus_band(c.consensus_strength)}",
        f"Deliberation Depth: {bar(c.deliberation_depth)} (diversity {comps.get('diversity', 0)}, "
        f"coverage {comps.get('coverage', 0)}, richness {comps.get('richness', 0)})",
        f"Winner Alignment:   {bar(sas.winner_alignment)}",
        f"Hallucination Risk: {bar(sas.hallucination_risk)}",
        f"Synthesis Grounded: {'Yes' if sas.grounded else 'No'} (max source alignment {sas.max_source_alignment})",
    ]
    return "\n".join(lines), ", ".join(q.warnings)


def _reviews(t: Transcript) -> tuple[ReviewView, ...]:
    out = []
    for rv in t.reviews:
        b = rv.ballot
        flags = [f for f, on in (("abstained", b.abstained), ("holistic", b.holistic)) if on]
        rubric = tuple(
            RubricRow(
                label=label,
                member=t.label_to_member.get(label, "?"),
                scores=" · ".join(f"{dim} {leaf(float(v))}" for dim, v in sorted(dims.items())),
            )
            for label, dims in sorted(b.scores.items())
        )
        out.append(
            ReviewView(
                reviewer=rv.reviewer,
                model=rv.model,
                raw_text=rv.raw_text,
                ranking=" > ".join(b.ranking) or "none",
                ranking_members=" > ".join(t.label_to_member.get(lb, "?") for lb in b.ranking),
                presentation=", ".join(rv.presentation_order),
                seed=rv.shuffle_seed,
                method=b.method,
                flags=", ".join(flags),
                critique=b.critique,
                rubric=rubric,
                error=rv.error or "",
                labels_seen=", ".join(f"{lb} seen as {shown}" for lb, shown in sorted(rv.shown_labels.items())),
                passes=tuple(
                    f"order {' , '.join(p.order)}: P(best) "
                    + " · ".join(f"{lb} {p.probabilities[lb]:.2f}" for lb in sorted(p.probabilities))
                    + f" → {p.winner}"
                    for p in rv.passes
                )
                + (
                    (f"position-consistent: {'yes' if rv.position_consistent else 'no'}",)
                    if rv.position_consistent is not None
                    else ()
                ),
            )
        )
    return tuple(out)


def subject_detail(r: CaseResult) -> SubjectDetail:
    t = r.transcript
    tier1, warnings = _tier1(r)
    scores = tuple(KeyValue(key=k, value=fmt_score(v, score_scale(k))) for k, v in sorted(r.scores.items()))
    checks = tuple(
        CheckView(kind=status_label(c.kind), target=c.target, passed=c.passed, detail=c.detail) for c in r.checks
    )
    blocks = _detail_blocks(r) + _blocks(r, _KNOWN_RESULT_FIELDS)
    detail = partial(
        SubjectDetail,
        subject=r.subject,
        status=r.status,
        label=status_label(r.status),
        error=r.error or "",
        checks=checks,
        scores=scores,
        tier1=tier1,
        warnings=warnings,
    )
    if t is None:
        return detail(
            final_answer=None,
            answers=(),
            show_answers=False,
            label_map="",
            reviews=(),
            aggregate=(),
            synthesis=None,
            chairman="",
            blocks=tuple(blocks),
            errors=(),
            calls=(),
            footer="no transcript",
        )
    vote = make_block("consensus vote (seed 002)", t.voting) if t.voting is not None else None
    if vote is not None:
        blocks.insert(0, vote)
    blocks += _blocks(t, _KNOWN_TRANSCRIPT_FIELDS, prefix="transcript: ")
    answers = tuple(
        AnswerView(
            member=a.member,
            model=a.model,
            text=a.text,
            error=a.error or "",
            confidence="" if a.confidence is None else f"{a.confidence:.2f}",
        )
        for a in t.answers
    )
    aggregate = tuple(
        AggregateView(
            member=a.member,
            borda=f"{a.borda:.3f}",
            average_position="—" if a.average_position is None else f"{a.average_position:.2f}",
            votes=a.votes,
        )
        for a in t.aggregate
    )
    calls = tuple(
        CallView(
            stage=c.stage,
            member=c.member,
            model=c.model,
            latency=f"{c.latency_s:.2f} s" + (" (recorded)" if c.cached else ""),  # a hit shows its recording
            tokens=f"{c.tokens_in} / {c.tokens_out}",
            cached=c.cached,
            error=c.error or "",
        )
        for c in t.calls
    )
    tin, tout = t.tokens
    self_report: tuple[tuple[str, ...], ...] = ()
    self_flags: tuple[str, ...] = ()
    if t.external is not None:
        from harness.metrics.self_reported import HEADERS, compare_self_reported

        cmp = compare_self_reported(t, r.quality_metrics)
        if cmp is not None:
            self_report = (HEADERS, *cmp.rows())
            self_flags = tuple(f"{f.code}: {f.message}" for f in cmp.flags)
    return detail(
        self_report=self_report,
        self_report_flags=self_flags,
        final_answer=t.final_answer,
        answers=answers,
        show_answers=len(t.answers) > 1 or bool(t.reviews),
        label_map=", ".join(f"{lb} = {m}" for lb, m in sorted(t.label_to_member.items())),
        reviews=_reviews(t),
        aggregate=aggregate,
        synthesis=t.synthesis,
        chairman=t.chairman or "",
        blocks=tuple(blocks),
        errors=t.errors,
        calls=calls,
        footer=f"{len(t.calls)} calls · {t.duration_s:.1f} s · tokens {tin} in / {tout} out",
    )


def detail_indices(rows: Sequence[MatrixRow], limit: int = DETAIL_LIMIT) -> set[int]:
    """Which matrix rows get a transcript: all when at most ``limit``; else the rows that need a look
    (failing, regressed, subjects differ, awaiting review) first, then the others, each in matrix
    order, up to ``limit``."""
    if len(rows) <= limit:
        return set(range(len(rows)))
    first = [
        i
        for i, r in enumerate(rows)
        if r.failing or r.regressed or r.differ or any(c.status == "awaiting_review" for c in r.cells)
    ]
    chosen = set(first[:limit])
    for i in range(len(rows)):
        if len(chosen) >= limit:
            break
        chosen.add(i)
    return chosen


def case_details(
    grouped: list[tuple[str, str, dict[str, CaseResult]]],
    subjects: Sequence[str],
    keep: set[int] | None = None,
) -> tuple[CaseDetail, ...]:
    out = []
    for i, (ds, cid, by) in enumerate(grouped):
        if keep is not None and i not in keep:
            continue
        ordered = [by[s] for s in subjects if s in by] + [r for s, r in sorted(by.items()) if s not in subjects]
        query = next((r.transcript.query for r in ordered if r.transcript is not None), "")
        category = next((r.category for r in ordered if r.category), None) or ""
        out.append(
            CaseDetail(
                anchor=case_anchor(ds, cid),
                dataset=ds,
                case_id=cid,
                category=category,
                query=query,
                subjects=tuple(subject_detail(r) for r in ordered),
            )
        )
    return tuple(out)


def expert_items(
    grouped: list[tuple[str, str, dict[str, CaseResult]]],
    subjects: Sequence[str],
) -> tuple[ReviewItem, ...]:
    out = []
    for ds, cid, by in grouped:
        for s in [*[s for s in subjects if s in by], *sorted(set(by) - set(subjects))]:
            r = by[s]
            if r.evaluation_mode == "expert_review" or r.status == "awaiting_review":
                rv = r.review
                out.append(
                    ReviewItem(
                        anchor=case_anchor(ds, cid),
                        dataset=ds,
                        case_id=cid,
                        subject=s,
                        status=r.status,
                        label=status_label(r.status),
                        verdict=rv.verdict if rv else "",
                        by=f"{rv.who}, {rv.when.isoformat()}" if rv else "",
                        note=rv.note if rv else "",
                    )
                )
    return tuple(out)
