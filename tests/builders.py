"""The one set of test builders for transcripts and case results (records built with defaults).

:func:`transcript` is a subject's :class:`~harness.records.transcript.Transcript` whose final answer is ``final``
and, unless ``answers`` or ``texts`` say otherwise, one stage-1 answer with the same text;
:func:`result` is a :class:`~harness.run.result.CaseResult` around such a transcript (``answer=None``: no
transcript); :func:`metered` is the result of a numbered case ``qNN`` with one metered model call and given
scores (what the verdict and arm tests pair); :func:`run_folder` writes results as a run's folder. Every
other field of either record is passed through by keyword, so a test states only what it is about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.records.transcript import Answer, CallRecord, Transcript
from harness.run.result import CaseResult, Status


def transcript(
    final: str = "x",
    *,
    subject: str = "council",
    query: str = "q",
    member: str = "m",
    model: str = "m",
    texts: Mapping[str, str] | None = None,
    answers: Sequence[Answer] | None = None,
    **fields: Any,
) -> Transcript:
    """A transcript answering ``final``.

    Args:
        final: the final answer (and the text of the default single stage-1 answer).
        subject, query: as in :class:`Transcript`.
        member, model: who gave the default single stage-1 answer.
        texts: member -> stage-1 text, one answer each by ``model`` (instead of the single answer).
        answers: the stage-1 answers as given (``()`` for none); wins over ``texts``.
        fields: any other :class:`Transcript` field (``reviews``, ``calls``, ``label_to_member``, ...).
    """
    if answers is None:
        given = texts if texts is not None else {member: final}
        answers = tuple(Answer(member=m, model=model, text=t) for m, t in given.items())
    return Transcript(subject=subject, query=query, answers=tuple(answers), final_answer=final, **fields)


def result(
    case_id: str = "c1",
    subject: str = "council",
    status: Status = "passed",
    *,
    dataset: str = "d",
    answer: str | None = "x",
    query: str = "q",
    transcript_fields: Mapping[str, Any] | None = None,
    **fields: Any,
) -> CaseResult:
    """A case result of ``subject`` on ``case_id`` whose transcript answers ``answer``.

    Args:
        case_id, subject, status, dataset: the result's identity and outcome.
        answer: the transcript's final answer; ``None`` for a result without a transcript (unless
            ``transcript=`` is given in ``fields``).
        query: the transcript's query.
        transcript_fields: more :func:`transcript` arguments (``member``, ``calls``, ``answers``, ...).
        fields: any other :class:`CaseResult` field (``scores``, ``checks``, ``transcript``, ...).
    """
    if "transcript" not in fields and answer is not None:
        fields["transcript"] = transcript(answer, subject=subject, query=query, **(transcript_fields or {}))
    return CaseResult(case_id=case_id, dataset=dataset, subject=subject, status=status, **fields)


def metered(
    i: int,
    subject: str,
    scores: Mapping[str, float],
    *,
    tokens_in: int = 10,
    tokens_out: int = 0,
    model: str = "m",
    answers: Sequence[Answer] | None = (),
    tags: Sequence[str] = (),
) -> CaseResult:
    """Case ``q{i:02d}`` through ``subject`` with ``scores``: its transcript holds one ``answer`` call of
    ``model`` (``tokens_in``/``tokens_out``) and ``answers`` (default none; ``None``: :func:`transcript`'s one)."""
    call = CallRecord(stage="answer", member="m", model=model, tokens_in=tokens_in, tokens_out=tokens_out)
    return result(
        f"q{i:02d}",
        subject,
        transcript_fields={"answers": answers, "calls": (call,)},
        scores=dict(scores),
        tags=tuple(tags),
    )


def run_folder(
    root: Path,
    run_id: str,
    results: Sequence[CaseResult],
    *,
    datasets: Sequence[str] = ("d",),
    subjects: Sequence[str] | None = None,
    **manifest: Any,
) -> Path:
    """A run folder ``root/run_id`` as a run writes it: ``manifest.json`` and ``results.jsonl`` holding ``results``.

    Args:
        datasets: the manifest's datasets.
        subjects: the manifest's subjects (default: those of ``results``, in order of first appearance).
        manifest: any other :class:`~harness.run.runs.Manifest` field.
    """
    from harness.run.runs import Manifest, RunWriter

    if subjects is None:
        subjects = list(dict.fromkeys(r.subject for r in results))
    writer = RunWriter(root / run_id)
    manifest.setdefault("started_at", "2026-11-26T00:00:00Z")
    manifest.setdefault("finished_at", "2026-11-26T00:01:00Z")  # a finished run (None: killed mid-run)
    writer.write_manifest(
        Manifest(
            run_id=run_id,
            datasets=tuple(datasets),
            subjects=tuple(subjects),
            **manifest,
        )
    )
    writer.add(list(results))
    return root / run_id
