"""Whether a run is complete: the degradations that turn the gate's verdict into ``incomplete``.

A run is degraded, whatever its baselines say, when any of these holds:

1. ``unfinished``: its manifest has no finish time: the run was killed (SIGKILL, OOM, a crash) before
   it closed (``council-harness run`` writes the finish time before the gate runs).
2. ``stopped``: ``token_limit`` or ``cost_limit`` stopped it before every planned pair started
   (``manifest.partial``; ``--resume`` completes it).
3. ``not_run``: the run planned more (case, subject) pairs (``manifest.planned``) than it holds
   results for. Counted once for the run; with a baseline each absent baselined case is also a
   ``missing`` reason of :mod:`harness.gate.baselines`.
4. ``unreadable``: a line of ``results.jsonl`` is not a result record (it may hide any case).

Pairs that a pytest session skipped without a result (``manifest.skipped``: a ``skip``/``skipif``
mark, ``xfail(run=False)``, ``pytest.skip()``) are excused like deselected items: they are not in
``planned``, so they are never ``not_run``; :class:`Completeness` names them. An item that errored or
was never reached (``-x``, an interrupt), or whose pair a ``token_limit``/``cost_limit`` stopped (the
plugin reports it skipped; the run is ``stopped``), is not skipped: it stays planned and is ``not_run``.

Each is a :class:`~harness.gate.baselines.GateReason` of its kind, and every kind in
:data:`~harness.gate.baselines.INCOMPLETE_KINDS` makes the verdict ``incomplete`` (exit code
:data:`~harness.gate.baselines.EXIT_INCOMPLETE`) unless a regression makes it ``fail``
(:func:`~harness.gate.baselines.verdict_of`). :class:`Completeness` holds the counts that the
console, ``summary.json`` and the report's headline show.
"""

from __future__ import annotations

from harness.common.model import Frozen
from harness.gate.baselines import GateReason
from harness.run.runs import RESULTS, Run

#: how many skipped pairs :meth:`Completeness.words` names
SKIPPED_NAMED = 5


class Completeness(Frozen):
    """How complete a run is (see the module docstring).

    Args:
        planned: the (case, subject) pairs the run planned (``None``: not recorded, e.g. an old run).
        results: the readable results it holds (one per pair).
        not_run: ``planned - results`` when known and positive, else 0.
        unreadable_lines: lines of ``results.jsonl`` that are not result records.
        finished: whether the manifest has a finish time (``False``: killed mid-run).
        stopped: why a limit stopped the run (``None`` when none did).
        skipped: the pairs pytest skipped without a result (``dataset::case[subject]``), not planned.
    """

    planned: int | None = None
    results: int
    not_run: int = 0
    unreadable_lines: int = 0
    finished: bool = True
    stopped: str | None = None
    skipped: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.finished and self.stopped is None and not self.not_run and not self.unreadable_lines

    def words(self) -> str:
        """One line for people: ``incomplete: 1 of 24 planned result(s), run not finished (killed?)``; the
        skipped pairs are named (the first :data:`SKIPPED_NAMED`)."""
        held = (
            f"{self.results} of {self.planned} planned result(s)"
            if self.planned is not None
            else (f"{self.results} result(s)")
        )
        parts = [held]
        if self.skipped:
            named = ", ".join(self.skipped[:SKIPPED_NAMED])
            more = f" and {len(self.skipped) - SKIPPED_NAMED} more" if len(self.skipped) > SKIPPED_NAMED else ""
            parts.append(f"{len(self.skipped)} skipped by pytest, not planned ({named}{more})")
        if self.unreadable_lines:
            parts.append(f"{self.unreadable_lines} unreadable line(s) in {RESULTS}")
        if not self.finished:
            parts.append("the run never finished (killed or crashed mid-run)")
        if self.stopped is not None:
            parts.append(f"stopped early: {self.stopped}")
        return ("complete: " if self.complete else "incomplete: ") + ", ".join(parts)


def completeness(run: Run) -> Completeness:
    """The completeness of ``run`` as read back from its folder."""
    m = run.manifest
    planned = m.planned
    return Completeness(
        planned=planned,
        results=len(run.results),
        not_run=max(planned - len(run.results), 0) if planned is not None else 0,
        unreadable_lines=len(run.corrupt_lines),
        finished=m.finished_at is not None,
        stopped=(m.stopped or "a limit stopped the run") if m.partial else None,
        skipped=m.skipped,
    )


def completeness_reasons(run: Run, state: Completeness, datasets: str) -> list[GateReason]:
    """The run-level reasons of ``state`` (``unfinished``, ``stopped``, ``not_run``; unreadable lines are
    reasons of the comparison or of :func:`harness.gate.regression.gate_outcome`)."""
    out = []
    if not state.finished:
        out.append(
            GateReason(
                kind="unfinished",
                dataset=datasets,
                detail=(
                    f"the run never finished (no finish time in {run.run_dir / 'manifest.json'}): killed or crashed "
                    f"mid-run; finish it with `council-harness run --resume {run.run_id}`"
                ),
            )
        )
    if state.stopped is not None:
        out.append(
            GateReason(
                kind="stopped",
                dataset=datasets,
                detail=(
                    f"stopped early by a limit ({state.stopped}); finish it with `council-harness run --resume "
                    f"{run.run_id}`"
                ),
            )
        )
    if state.not_run:
        out.append(
            GateReason(
                kind="not_run",
                dataset=datasets,
                n=state.not_run,
                detail=(f"{state.not_run} of {state.planned} planned (case, subject) pair(s) have no result"),
            )
        )
    return out
