"""Leave-one-out cross-check (issue 15 item 2): does a member's measured effect agree with who the
synthesis follows and how its peers rank it?

Per council member m, over the run's ``council`` results:

* **Attribution share**: per case with a synthesis and at least one stage-1 answer, the member(s)
  whose answer has the highest token-Jaccard to the synthesis (:func:`harness.common.text.jaccard`, the
  source of Tier 1's SAS ``max_source_alignment``) get the case, split equally on ties; m's share is
  the cases it got over those cases (the shares of all members sum to 1).
* **Mean peer rank**: the mean over cases of m's aggregate stage-2 ``average_position`` (1 = ranked
  first; cases where m got no ballot are left out; ``None`` when it never got one).
* **Leave-one-out effect**: :func:`harness.gate.arm_verdicts.leave_one_out` when ``council-without:m`` ran.

**Disagreements** (each a flag with its reason; only for members with a leave-one-out effect):

1. ``followed but dispensable``: m has the highest attribution share (ties: each of them) and its
   removal does not hurt (the leave-one-out interval's low end is at most 0).
2. ``top-ranked but dispensable``: m has the best (lowest) mean peer rank and its removal does not hurt.
3. ``matters but unfollowed``: its removal hurts (low end above 0) although its attribution share is
   below an equal share ``1 / members``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.common.model import Frozen
from harness.common.text import jaccard
from harness.gate.arm_verdicts import LeaveOneOut
from harness.run.result import CaseResult


class CrossCheck(Frozen):
    """One member's leave-one-out effect beside its attribution share and mean peer rank."""

    member: str
    attribution_share: float | None
    attributed_cases: int  # cases that had a synthesis and answers (the share's denominator)
    mean_peer_rank: float | None
    loo_effect: float | None
    loo_low: float | None
    loo_high: float | None
    flags: tuple[str, ...]

    @property
    def sentence(self) -> str:
        share = f"{self.attribution_share:.0%}" if self.attribution_share is not None else "—"
        rank = f"{self.mean_peer_rank:.2f}" if self.mean_peer_rank is not None else "—"
        loo = f"{self.loo_effect:+.3f}" if self.loo_effect is not None else "not run"
        flags = f" — {'; '.join(self.flags)}" if self.flags else ""
        return (
            f"cross-check {self.member}: synthesis follows it in {share} of {self.attributed_cases} case(s), "
            f"mean peer rank {rank}, leave-one-out effect {loo}{flags}"
        )


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def cross_check(results: Sequence[CaseResult], loo: Sequence[LeaveOneOut]) -> list[CrossCheck]:
    """Per council member (sorted), the cross-check of the module docstring; empty without council results."""
    council = [r for r in results if r.subject == "council" and r.transcript is not None]
    members = sorted({a.member for r in council for a in r.transcript.answers} if council else set())  # type: ignore[union-attr]
    if not members:
        return []
    got = dict.fromkeys(members, 0.0)
    ranks: dict[str, list[float]] = {m: [] for m in members}
    cases = 0
    for r in council:
        t = r.transcript
        assert t is not None
        answers = [a for a in t.ok_answers if a.text]
        if t.synthesis and answers:
            cases += 1
            sims = [jaccard(t.synthesis, a.text) for a in answers]
            top = [a.member for a, s in zip(answers, sims, strict=True) if s == max(sims)]
            for m in top:
                got[m] += 1 / len(top)
        for agg in t.aggregate:
            if agg.member in ranks and agg.votes > 0 and agg.average_position is not None:
                ranks[agg.member].append(agg.average_position)
    share = {m: (got[m] / cases if cases else None) for m in members}
    mean_rank = {m: (sum(v) / len(v) if v else None) for m, v in ranks.items()}
    top_share = max((s for s in share.values() if s is not None), default=None)
    best_rank = min((x for x in mean_rank.values() if x is not None), default=None)
    by_member = {x.member: x for x in loo}
    out: list[CrossCheck] = []
    for m in members:
        x = by_member.get(m)
        flags: list[str] = []
        if x is not None and math.isfinite(x.low):
            if x.flagged and top_share is not None and share[m] == top_share:
                flags.append("followed but dispensable: the synthesis follows it most, yet removing it does not hurt")
            if x.flagged and best_rank is not None and mean_rank[m] == best_rank:
                flags.append("top-ranked but dispensable: peers rank it best, yet removing it does not hurt")
            if not x.flagged and share[m] is not None and share[m] < 1 / len(members):  # type: ignore[operator]
                flags.append(
                    "matters but unfollowed: removing it hurts, yet the synthesis follows it less than an equal share"
                )
        out.append(
            CrossCheck(
                member=m,
                attribution_share=share[m],
                attributed_cases=cases,
                mean_peer_rank=mean_rank[m],
                loo_effect=_finite(x.effect) if x else None,
                loo_low=_finite(x.low) if x else None,
                loo_high=_finite(x.high) if x else None,
                flags=tuple(flags),
            )
        )
    return out


def cross_check_summary(checks: Sequence[CrossCheck]) -> list[dict[str, object]]:
    """The ``"cross_check"`` entry of summary.json's ``"arms"`` section."""
    return [dict(c.model_dump(mode="json"), sentence=c.sentence) for c in checks]
