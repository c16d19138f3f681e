"""Whether an answer disclaims what it says (used by :func:`harness.metrics.correctness.check_expected`).

An answer *disclaims* its value when, in its own voice, it declines to stand by it — "I can't vouch
for that", "I'd rather not state a single figure", "I'm not sure", "I can't be certain", "don't
quote me", "I wouldn't rely on that number", "I'm unsure", "I might be off", "I haven't been
able to verify that" (:data:`DISCLAIMER`)
— and nothing after its last disclaimer commits again: no turn ("…, but I think it's 212", "that
said", "still") and no answer cue or declared line ("I'm not sure. The answer is 212."). A value
read from a disclaimed answer is not a commitment: the check is ``ambiguous``, never correct (for
every type except ``python``, whose code is run, not read).
"""

from __future__ import annotations

import re

#: "I'm not sure why people think Sydney": a doubt about something else, not about the answer.
_NOT_ABOUT = r"(?!\s+(?:why|how|what|where|when|who|whom|which|whether\s+people|if\s+people)\b)"
DISCLAIMER = re.compile(
    r"(?i)\bI(?:'d|’d|\s+would)\s+(?:rather|prefer)\s+not\s+(?:to\s+)?(?:state|give|say|guess|commit|answer|name|pick|offer)\b"
    r"|\bI\s+(?:can't|can’t|cannot|can\s+not|won't|won’t|couldn't|couldn’t)\s+(?:really\s+|honestly\s+|fully\s+)?"
    r"(?:vouch|confirm|verify|guarantee|commit|be\s+(?:sure|certain|confident)|tell\s+(?:for\s+sure|which)"
    r"|say\s+(?:for\s+(?:sure|certain)|definitively|which|with\s+certainty)|definitively\s+say|determine"
    r"|give\s+(?:you\s+)?(?:a|an)\s+(?:definitive|single|simple|exact|firm|reliable|certain|confident))\b"
    + r"|\bI(?:'m|’m|\s+am)\s+(?:[\w%]+\s+){0,2}?not\s+(?:[\w%]+\s+)?(?:sure|certain|confident)\b"
    + _NOT_ABOUT
    + r"|\bI(?:'m|’m|\s+am)\s+unable\s+to\s+(?:confirm|verify|say|determine|give|answer|tell)\b"
    r"|\bI(?:'m|’m|\s+am)\s+(?:\w+\s+)?(?:unsure|uncertain)\b"
    + _NOT_ABOUT
    + r"|\bI\s+(?:might|could|may)\s+(?:well\s+)?be\s+(?:wrong|off|mistaken|misremembering)\b"
    r"|\bI\s+(?:don't|don’t|do\s+not)\s+(?:really\s+|actually\s+)?know\b" + _NOT_ABOUT + r"|\bdon't\s+quote\s+me\b"
    r"|\bI\s+(?:haven't|haven’t|have\s+not|couldn't|couldn’t|could\s+not)\s+(?:been\s+able\s+to\s+)?"
    r"(?:verify|verified|confirm|confirmed|check|checked)\b"
    r"|\bI(?:'m|’m|\s+am|'d|’d|\s+would|'ll|’ll|\s+will)?\s*(?:not|never|won't|won’t|wouldn't|wouldn’t|can't|can’t|"
    r"cannot|don't|don’t)\s+(?:\w+\s+){0,3}?(?:state|give|commit|rely|vouch|guarantee|swear|trust|stand\s+by)\b"
)
_COMMITS_AFTER = re.compile(
    r"(?i)\b(?:but|however|still|that\s+said|nevertheless|nonetheless|yet|anyway|regardless)\b"
    r"|\banswer\b[^.\n]{0,24}?(?:\bis\b|:|=)|\\boxed|^\s*#{4}\s*\S",
    re.MULTILINE,
)


def disclaimed(answer: str) -> str | None:
    """The answer's last disclaimer when nothing after it commits again (see the module docstring), else ``None``."""
    found = list(DISCLAIMER.finditer(answer))
    if not found or _COMMITS_AFTER.search(answer, found[-1].end()):
        return None
    return found[-1].group(0)
