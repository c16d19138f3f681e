"""What a baseline arm (self-consistency, stage-1 vote) recorded about how it picked its answer."""

from __future__ import annotations

from typing import Literal

from harness.common.model import Frozen


class ArmRecord(Frozen):
    """How an arm chose its final answer among several candidate answers.

    Args:
        kind: ``self-consistency`` (n samples of one model) or ``vote`` (the members' stage-1 answers).
        rule: ``majority`` (most frequent extracted answer, for cases with ``expected:``) or
            ``medoid`` (the candidate with the highest mean token-Jaccard to the others).
        samples: how many candidates were drawn (self-consistency's n) or answered (vote).
        chosen: the 0-based index of the chosen candidate among those that gave a non-empty answer
            (the transcript's answers without an error, in order).
        votes: extracted answer -> how many candidates gave it (``majority`` only).
        target_tokens: the council's total tokens (prompt + completion) on the same case that
            self-consistency's n was matched to; ``None`` when the council was not run alongside.
        matched_samples: the n that matches ``target_tokens`` (the n used when the samples are matched).
        tokens: the arm's own total tokens (prompt + completion) over its calls.
        match_on: the budget self-consistency was matched on (``arms.match_on``: ``tokens``,
            ``completion_tokens`` or ``cost``); ``None`` when it was not matched.
        target: the council's budget on the case in that unit; spent: the arm's, in the same unit.
    """

    kind: Literal["self-consistency", "vote"]
    rule: Literal["majority", "medoid"]
    samples: int
    chosen: int
    votes: dict[str, int] = {}
    target_tokens: int | None = None
    matched_samples: int | None = None
    tokens: int = 0
    match_on: Literal["tokens", "completion_tokens", "cost"] | None = None
    target: float | None = None
    spent: float | None = None
