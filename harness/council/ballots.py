"""Stage-2 ballots read from a reviewer's probabilities over the candidate labels.

For a reviewer whose probabilities can be read (the embedded models), no JSON is sampled:

1. The review prompt (:func:`probability_review_messages`) shows the answers under the
   reviewer's own labels in the presented order; one probe ``"The best answer is Response"``
   reads ``P(best = X)`` over the shown letters (``" A"``, ``" B"``, ...), renormalised over them.
2. The same is done with the answers shown in the reverse order (the MT-Bench convention for
   cancelling position bias); labels stay attached to their answers.
3. The ballot ranks the labels by the mean of the two passes' ``P(best = X)``, highest first
   (ties: transcript label order). Self-votes are removed later, at aggregation, as for any
   ballot.
4. The review is *position-consistent* when both passes have the same winner (argmax; ties go
   to the first label alphabetically).
5. The critique is free text generated once, in the presented order: it starts with
   :data:`BEST_PROBE` as its lead (so it names the reviewer's pick, then says why) and ends at its
   first line break (:data:`CRITIQUE_STOP`; the prompt asks for one short sentence), at most
   ``settings.critique_max_tokens`` generated tokens, no grammar. Without the lead both models
   first echoed a label line (SmolLM2 ``<<<Response A>>``, Gemma ``Answer:``), which a line-long
   critique then was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from harness.config import MemberSpec
from harness.council.prompts import review_preamble
from harness.providers.calls import Caller
from harness.providers.probe import Probe, normalise
from harness.records.transcript import Ballot, BallotPass, CallRecord, Message, Review

BEST_PROBE = "The best answer is Response"
#: the critique ends at its first line break (a base model goes on to list every answer otherwise)
CRITIQUE_STOP = ("\n",)


def critique_text(generated: str) -> str:
    """The critique as shown: the lead and what the reviewer generated after it ("" when nothing)."""
    return f"{BEST_PROBE}{generated}".strip() if generated.strip() else ""


def probability_review_messages(query: str, order: Sequence[str], texts: Mapping[str, str]) -> list[Message]:
    """Stage 2 for a probability ballot: the answers in ``order`` (shown labels), then a short critique."""
    task = review_preamble(query, order, texts) + "In one short sentence, say which answer is best and why."
    return [Message(role="user", content=task)]


def letter(label: str) -> str:
    """The option a label is read as after :data:`BEST_PROBE` (``Response B`` -> ``" B"``)."""
    return " " + label.rsplit(" ", 1)[-1]


def winner(probabilities: Mapping[str, float]) -> str:
    """The most probable label; ties go to the first label alphabetically."""
    return min(probabilities, key=lambda lab: (-probabilities[lab], lab))


def combine_passes(passes: Sequence[BallotPass], labels: Sequence[str]) -> tuple[tuple[str, ...], dict[str, float]]:
    """Ranking (best first) and mean ``P(best)`` per label over the passes (ties: ``labels`` order)."""
    mean = {lab: sum(p.probabilities[lab] for p in passes) / len(passes) for lab in labels}
    index = {lab: i for i, lab in enumerate(labels)}
    return tuple(sorted(labels, key=lambda lab: (-mean[lab], index[lab]))), mean


async def probability_review(
    caller: Caller,
    member: MemberSpec,
    query: str,
    order: Sequence[str],
    texts: Mapping[str, str],
    shown_labels: Mapping[str, str],
    seed: int,
    critique_max_tokens: int,
) -> tuple[Review, list[CallRecord]]:
    """One reviewer's probability ballot (both orders) and its call records.

    Args:
        caller: routes the calls (the member's provider must support probes).
        member: the reviewer.
        query: the question.
        order: transcript labels in the presented order.
        texts: transcript label -> answer text.
        shown_labels: transcript label -> the label this reviewer sees.
        seed: the recorded shuffle seed (kept on the review).
        critique_max_tokens: the critique's generation cap (0: no critique).
    """
    labels = sorted(texts)
    shown_texts = {shown_labels[lab]: texts[lab] for lab in labels}
    probe = Probe(text=BEST_PROBE, options=tuple(letter(shown_labels[lab]) for lab in labels))
    orders = (tuple(order), tuple(reversed(order)))
    calls = await asyncio.gather(
        *(
            caller.probe(
                member,
                "stage2",
                probability_review_messages(query, [shown_labels[lab] for lab in o], shown_texts),
                [probe],
                max_tokens=critique_max_tokens if i == 0 else 0,
                temperature=min(member.temperature, 0.3),
                lead=BEST_PROBE if i == 0 and critique_max_tokens else "",
                stop=CRITIQUE_STOP if i == 0 and critique_max_tokens else (),
            )
            for i, o in enumerate(orders)
        )
    )
    records = [record for _, record in calls]
    failed = next((r.error for r in records if r.error), None)
    if failed is not None or any(reply is None for reply, _ in calls):
        return Review(
            reviewer=member.id,
            model=member.model,
            raw_text="",
            ballot=Ballot(abstained=True),
            presentation_order=tuple(order),
            shuffle_seed=seed,
            shown_labels=dict(shown_labels),
            error=failed or "no probabilities",
        ), records
    passes = []
    for o, (reply, _) in zip(orders, calls, strict=True):
        assert reply is not None
        dist = normalise(reply.logprobs[0])
        probs = {lab: dist[letter(shown_labels[lab])] for lab in labels}
        passes.append(BallotPass(order=o, probabilities=probs, winner=winner(probs)))
    ranking, _ = combine_passes(passes, labels)
    critique = critique_text(calls[0][0].text) if calls[0][0] is not None else ""
    return Review(
        reviewer=member.id,
        model=member.model,
        raw_text=critique,
        ballot=Ballot(ranking=ranking, critique=critique, method="probabilities"),
        presentation_order=tuple(order),
        shuffle_seed=seed,
        shown_labels=dict(shown_labels),
        passes=tuple(passes),
        position_consistent=passes[0].winner == passes[1].winner,
    ), records
