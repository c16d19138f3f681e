"""Stage 2: anonymized presentation, ballot parsing and normalized Borda aggregation."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from harness.common.ballot_labels import LABEL_LETTERS, MAX_CANDIDATES
from harness.common.jsonscan import json_objects
from harness.common.rubric_terms import RUBRIC_DIMENSIONS as RUBRIC_DIMENSIONS  # the old import path
from harness.records.transcript import AggregateRank, Ballot, Review

# the body may not contain another fence: a lazy ``.*?`` across fences is quadratic on "```{" * n
_LABEL_IN_TEXT = re.compile(r"\bResponse\s+([A-Z])\b")
# a numbered line: horizontal space only (``^\s*`` under MULTILINE crosses lines and is quadratic on blank lines)
_NUMBERED_LABEL = re.compile(r"^[^\S\n]*\d+[.)][^\S\n]*(Response[^\S\n]+[A-Z])\b", re.MULTILINE)
#: Longest reviewer reply parsed, in characters: a longer one keeps its first and last halves of this
#: (a JSON ballot usually opens a reply, a FINAL RANKING closes it); ``Ballot.capped`` records the cut.
BALLOT_TEXT_LIMIT = 1_000_000
_LABEL_ITEM = re.compile(r"^\s*(?:response\s+)?([A-Za-z])\s*$", re.IGNORECASE)
_REFUSAL = re.compile(
    r"^\s*(?:I\s+(?:cannot|can't|can not|won't|will not|am unable|'m unable|refuse|must decline)"
    r"|I'm sorry|Sorry,|As an AI)",
    re.IGNORECASE,
)
DELIM_OPEN = "<<<"
DELIM_CLOSE = ">>>"


def labels_for(n: int) -> list[str]:
    """``Response A`` .. for ``n`` candidates (at most 26)."""
    if n > MAX_CANDIDATES:
        raise ValueError(f"at most {MAX_CANDIDATES} council members can be anonymized, got {n}")
    return [f"Response {c}" for c in LABEL_LETTERS[:n]]


def presentation_order(labels: Sequence[str], seed: int) -> tuple[str, ...]:
    """The order one reviewer sees the candidates in, shuffled with a recorded seed."""
    order = list(labels)
    random.Random(seed).shuffle(order)
    return tuple(order)


def label_assignment(labels: Sequence[str], seed: int) -> dict[str, str]:
    """Transcript label -> the label one reviewer sees, a permutation drawn with the recorded seed.

    Drawn from its own stream (``Random(f"labels:{seed}")``), independent of the display order,
    so the member behind ``Response A`` differs from reviewer to reviewer.
    """
    shown = list(labels)
    random.Random(f"labels:{seed}").shuffle(shown)
    return dict(zip(labels, shown, strict=True))


def relabel_ballot(ballot: Ballot, shown_labels: Mapping[str, str]) -> Ballot:
    """A ballot parsed in a reviewer's own labels, translated back to the transcript's labels."""
    back = {shown: label for label, shown in shown_labels.items()}
    return ballot.model_copy(
        update={
            "ranking": tuple(back[x] for x in ballot.ranking if x in back),
            "scores": {back[x]: dims for x, dims in ballot.scores.items() if x in back},
        }
    )


def escape_candidate(text: str) -> str:
    """Keep candidate text from closing or forging its delimiters."""
    return text.replace(DELIM_OPEN, "\u2039\u2039\u2039").replace(DELIM_CLOSE, "\u203a\u203a\u203a")


def render_candidates(order: Sequence[str], texts: Mapping[str, str]) -> str:
    """Candidates in presentation order, each inside ``<<<Response X>>> ... <<<end>>>`` delimiters."""
    blocks = [
        f"{DELIM_OPEN}{label}{DELIM_CLOSE}\n{escape_candidate(texts[label]).strip()}\n"
        f"{DELIM_OPEN}end {label}{DELIM_CLOSE}"
        for label in order
    ]
    return "\n\n".join(blocks)


def _normalize_label(item: object, valid: set[str]) -> str | None:
    if not isinstance(item, str):
        return None
    m = _LABEL_ITEM.match(item)
    if not m or not m.group(1).isascii():  # IGNORECASE also folds 'ſ' (long s) to s and 'ı' (dotless i) to i
        return None
    label = f"Response {m.group(1).upper()}"
    return label if label in valid else None


def _clean(labels: Sequence[str | None]) -> tuple[str, ...]:
    seen: list[str] = []
    for label in labels:
        if label is not None and label not in seen:
            seen.append(label)
    return tuple(seen)


def _json_ballot(obj: dict, valid: set[str], method: str) -> Ballot | None:
    ranking = obj.get("ranking")
    if not isinstance(ranking, list):
        return None
    cleaned = _clean([_normalize_label(x, valid) for x in ranking])
    scores: dict[str, dict[str, float]] = {}
    holistic = False
    raw_scores = obj.get("scores")
    if isinstance(raw_scores, dict):
        for key, value in raw_scores.items():
            label = _normalize_label(key, valid)
            if label is None:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                holistic = True
            elif isinstance(value, dict):
                dims = {
                    str(d).lower(): float(v)
                    for d, v in value.items()
                    if isinstance(v, int | float) and not isinstance(v, bool) and 1 <= v <= 10
                }
                if dims:
                    scores[label] = dims
    critique = obj.get("critique")
    return Ballot(
        ranking=cleaned,
        scores={} if holistic else scores,
        critique=critique.strip() if isinstance(critique, str) else "",
        method=method,  # type: ignore[arg-type]
        abstained=not cleaned,
        holistic=holistic,
    )


def parse_ballot(text: str, valid_labels: Sequence[str]) -> Ballot:
    """Parse a reviewer's reply into a cleaned ballot; never raises.

    Order: fenced JSON ``{"ranking": [...], "scores": {...}}``, raw JSON, a ``FINAL RANKING:``
    numbered list, then any ``Response X`` mentions in order. A refusal is an abstention;
    duplicates and unknown labels are dropped. A reply longer than :data:`BALLOT_TEXT_LIMIT`
    characters is parsed as its first and last halves of that, joined by a newline (the ballot's
    ``capped`` says so); every step is linear in the text parsed.
    """
    if len(text) > BALLOT_TEXT_LIMIT:
        half = BALLOT_TEXT_LIMIT // 2
        return _parse(text[:half] + "\n" + text[-half:], valid_labels).model_copy(update={"capped": True})
    return _parse(text, valid_labels)


def _parse(text: str, valid_labels: Sequence[str]) -> Ballot:
    valid = set(valid_labels)
    for _, _, obj, method in json_objects(text):
        ballot = _json_ballot(obj, valid, method)
        if ballot is not None:
            return ballot
    if "FINAL RANKING:" in text:
        tail = text.split("FINAL RANKING:", 1)[1]
        numbered = _NUMBERED_LABEL.findall(tail)
        found = numbered or [f"Response {c}" for c in _LABEL_IN_TEXT.findall(tail)]
        cleaned = _clean([x if x in valid else None for x in (re.sub(r"\s+", " ", f) for f in found)])
        if cleaned:
            return Ballot(ranking=cleaned, method="final_ranking")
    if _REFUSAL.search(text):
        return Ballot(method="none", abstained=True)
    mentions = _clean(
        [lab if lab in valid else None for lab in (f"Response {c}" for c in _LABEL_IN_TEXT.findall(text))]
    )
    if mentions:
        return Ballot(ranking=mentions, method="mentions")
    return Ballot(method="none", abstained=True)


def borda_points(position: int, k: int) -> float:
    """Normalized Borda points ``(k-1-pos)/(k-1)`` for a 0-based position in a ballot of ``k``."""
    return 1.0 if k == 1 else (k - 1 - position) / (k - 1)


def aggregate_rankings(
    reviews: Sequence[Review], label_to_member: Mapping[str, str], members: Sequence[str]
) -> tuple[AggregateRank, ...]:
    """Aggregate the ballots into per-member standings, best first.

    Each ballot drops the reviewer's own answer (self-votes) and is re-indexed before scoring.
    Members are ordered by mean Borda (desc), average position (asc), then member id; members
    with no votes come last with no average position.
    """
    points: dict[str, list[float]] = defaultdict(list)
    positions: dict[str, list[int]] = defaultdict(list)
    for review in reviews:
        if not review.ok or review.ballot.abstained:
            continue
        ballot = [
            label_to_member[label]
            for label in review.ballot.ranking
            if label in label_to_member and label_to_member[label] != review.reviewer
        ]
        k = len(ballot)
        for pos, member in enumerate(ballot):
            points[member].append(borda_points(pos, k))
            positions[member].append(pos + 1)
    ranks = [
        AggregateRank(
            member=m,
            borda=sum(points[m]) / len(points[m]) if points[m] else 0.0,
            average_position=sum(positions[m]) / len(positions[m]) if positions[m] else None,
            votes=len(points[m]),
        )
        for m in members
    ]

    def key(r: AggregateRank) -> tuple:
        voted = r.votes > 0
        return (not voted, -r.borda, r.average_position or 0.0, r.member)

    return tuple(sorted(ranks, key=key))
