"""Rule tables for yes/no answers that use no yes/no word (used by :func:`harness.metrics.extraction.extract_boolean`).

* :data:`LEADING_NOT` — an answer that opens with "Not …" ("Not on a sphere", "Not always",
  "Not necessarily") says no; "Not only", "Not sure", "Not certain" are not answers.
* :func:`short_aux` — a first sentence of at most four words that is a pronoun and an auxiliary
  ("It will.", "They do.", "It doesn't.", "There is not.") answers with the auxiliary's polarity.
* :data:`MYTH` — "That is a myth", "a common misconception": false ("not a myth": true).
* :data:`HOLDS` — "the statement holds" / "the claim does not hold" / "the claim is accurate".
* :data:`BARE_VERDICT` — a last sentence or line that is only a yes/no word ("… so you end up
  where you started. Yes.", a final line "No"), optionally after "so" / "verdict:" (a bold one is
  left to the bold rule).
* :data:`SAID_VERDICT` — a yes/no word given as what is said ("a typical person would answer No",
  "I'd say yes"); it does not count when a contrast or correction follows it ("Most would say yes,
  but …": :data:`SAID_TURNED`).
* :data:`PARTIAL` — "partially true", "mostly false": the clause commits to neither value
  (``ambiguous``); :data:`TURNED_BARE` — a leading yes/no turned by a later bare opposite word
  ("Yes, in one sense — no, officially", "True, if …; false otherwise", "Yes (for adults); no (for
  children)") is ``ambiguous``, and so is one followed by "it depends" (:data:`DEPENDS`).
* :data:`SO_VERDICT` — "so yes", "thus, no": an answer that gives both ("…, so yes; but …, so no")
  is ``ambiguous``; :data:`HEDGE` — a last sentence that leaves it open ("It depends on the
  reader.", "Hard to say.") makes an answer that gives a yes/no word but no declared line or
  answer cue ``ambiguous`` (with no yes/no word at all it stays unanswered).
* :func:`leading_predicate` — an answer that opens with the question's predicate adjective or its
  opposite standing alone ("Implausible — …" for "Is the sentence plausible?"; pairs in
  :data:`ANTONYMS`).
* :func:`predicate_polarity` — the question "Is 51 prime?" asks whether a subject has a predicate
  (also after a leading condition: "If you follow these instructions, do you return …?");
  an answer clause "51 is not prime" (the same auxiliary, a subject made of the question's words or
  a pronoun, and a predicate whose content words, up to a reason or comment such as "because …"
  or a parenthesis, are all in the question: "Sydney is the capital of New South Wales" does not answer "Is Sydney
  the capital of Australia?") answers with its polarity; a predicate that is the opposite of the
  question's (:data:`ANTONYMS`: "it's composite" for "Is 91 prime?", "it is odd" for "Is 7
  even?") answers with the other polarity. A clause may follow a dash or "hence" / "thus" /
  "therefore", its auxiliary may be "'s", and "Does X tell the truth?" reads "X lies" / "X is
  lying" as "X does not tell the truth" and "X is truthful" / "X tells the truth" as "X does".
  A clause that is a question ("It is composite? No, …") does not count, and clauses that
  disagree ("Millie lies — wait, no, Millie tells the truth") answer nothing.
  Failing that, a contrasted clause naming another
  subject with the whole predicate ("…, but Canberra is the capital" for "Is Sydney the capital of
  Australia?") answers no.
"""

from __future__ import annotations

import re

LEADING_NOT = re.compile(r"(?i)^[\W_]*not\b(?!\s+(?:only|sure|certain|quite\s+sure|yet\s+known|known)\b)")
_AUX = r"will|would|does|do|did|is|are|was|were|can|could|should|has|have|had|must|may|might"
_NEG_AUX = (
    r"won't|wouldn't|doesn't|don't|didn't|isn't|aren't|wasn't|weren't|can't|cannot|couldn't|shouldn't|"
    r"hasn't|haven't|hadn't|mustn't|mightn't"
)
_SHORT = re.compile(
    r"(?i)^[\W_]*(?:(?:indeed|sure|certainly|of\s+course|well)[,!]?\s+)?(?:it|they|he|she|this|that|there|you|we|i|one|so)\s+"
    r"(?:(?P<neg>" + _NEG_AUX + r")|(?P<aux>" + _AUX + r")(?P<not>\s+not|\s+never)?)"
    r"(?:\s+\w+)?\s*(?:[.!;—–-]|$)"
)
HOLDS = re.compile(
    r"(?i)\b(?:statement|claim|assertion|proposition|premise)\s+"
    r"(?:(?P<neg>does\s+not|doesn't|did\s+not|didn't|cannot|can't)\s+hold|holds|is\s+(?P<neg2>not\s+|n't\s+)?"
    r"(?:right|accurate|the\s+case|correct|true))\b"
)
#: "a myth", "a common misconception", "an urban legend": the claim is false ("not a myth": true).
MYTH = re.compile(
    r"(?i)(?P<neg>\bnot\s+|n't\s+)?\b(?:a|an|the)\s+(?:\w+\s+)?(?:myth|misconception|misbelief|fallacy|"
    r"urban\s+legend|old\s+wives'?\s+tale|falsehood|hoax)\b"
)
BARE_VERDICT = re.compile(
    r"(?i)^(?!.*(?:\*\*|__))[\W_]*(?:(?:so|thus|hence|therefore|finally|verdict|in\s+short|overall|final)[\W_]+)?"
    r"(?P<w>yes|no|true|false)[\W_]*$"
)
SAID_VERDICT = re.compile(
    r"(?i)\b(?:say|says|said|answer|answers|answered|reply|replies|respond|responds)\s+(?:with\s+)?(?:a\s+)?"
    r"[\"“'‘*_]*(?P<w>yes|no)\b"
)
#: A truth value only in part ("partially true", "mostly false", "half right"): it commits to neither.
PARTIAL = re.compile(
    r"(?i)\b(?:partially|partly|partial|somewhat|half|mostly|largely|sort\s+of|kind\s+of|in\s+part)\s+"
    r"(?:true|false|correct|incorrect|right|wrong|valid|invalid|yes|no)\b"
)
#: After a leading yes/no: a bare opposite word opening a later clause ("Yes, in one sense — no,
#: officially"), which turns the answer.
TURNED_BARE = re.compile(
    r"(?i)(?:[;:—–]|\s-|\bbut)\s*(?P<w>yes|no|true|false)\s*(?:[,.!;(]|$|\s+(?:otherwise|in\s+other\s+cases|for\b))"
)
#: After a leading yes/no: the opposite word ending a later clause of the same sentence, behind a
#: turn and a qualifier ("Yes, but culinarily no.", "Botanically, yes; in the kitchen, no.").
TURNED_QUALIFIED = re.compile(
    r"(?i)(?:\bbut\b|\bwhile\b|\bwhereas\b|[;:—–])[^.;:!?—–=<>()\d]{0,40}?\b(?P<w>yes|no|true|false)\s*(?:[,.!;)]|$)"
)
#: After a leading yes/no: "well, it depends …" leaves the answer open.
DEPENDS = re.compile(r"(?i)\b(?:it|that|this)\s+(?:all\s+|really\s+|just\s+)?depends\b")
SO_VERDICT = re.compile(r"(?i)\b(?:so|thus|hence|therefore)[,:]?\s+(?P<w>yes|no)\b")
HEDGE = re.compile(
    r"(?i)^[\W_]*(?:(?:it|that|this|the\s+answer)\s+(?:really\s+|all\s+|just\s+)?depends\b|(?:it'?s\s+)?(?:hard|difficult|"
    r"impossible)\s+to\s+(?:say|tell)\b|(?:it\s+)?could\s+go\s+either\s+way\b|(?:I'?m\s+)?not\s+sure\b)"
)
#: Inside a last sentence: a conclusion that leaves it open ("…, so it really depends on who you
#: ask", "both yes and no are defensible", "the answer is yes and no").
OPEN_ENDED = re.compile(
    r"(?i)\b(?:so|thus|hence|therefore|ultimately|really)[,]?\s+(?:it|that|this|the\s+answer)\s+(?:really\s+|all\s+|"
    r"just\s+)?depends\b|\bboth\s+(?:(?:a\s+)?[\"'“‘]?yes[\"'”’]?\s+and\s+(?:a\s+)?[\"'“‘]?no|true\s+and\s+false)\b"
    r"|\b(?:is|be|say)\s+[\"'“‘]?yes\s+and\s+no\b"
)
#: After a said verdict: a turn that sets it aside ("Most would say yes, but …", "… which is wrong").
SAID_TURNED = re.compile(
    r"(?i)\b(?:but|however|yet|actually|in\s+fact|wrong|mistaken|incorrect|myth|misconception|though|although)\b"
)
_STOP = frozenset(
    "the a an of to in on at for by with and or is are was were be it its this that there "
    "do does did can could will would should has have had than as from into any all some".split()
)
_QUESTION = re.compile(r"(?i)(?:^|[.!?:\n]\s*|,\s*)(?P<aux>" + _AUX + r")\s+(?P<rest>[^?.!\n]{1,200})\?")
_CLAUSE = re.compile(
    r"(?i)(?:^|[,;:(—–]\s*|[.!?]\s+|\b(?:and|but|so|hence|thus|therefore|because|since)\s+)(?P<subj>[\w'’ -]{1,40}?)"
    r"(?:\s+(?:(?P<neg>" + _NEG_AUX + r")|(?P<aux>" + _AUX + r"))|(?P<cl>['’]s))(?P<not>\s+not|\s+never)?"
    r"\s+(?P<pred>[^,.;:!?\n—–]{1,80})"
)
#: Predicates whose opposite answers the question too ("It's composite" for "Is 91 prime?"); both
#: directions, only complementary pairs.
ANTONYMS = {
    a: b
    for x, y in (
        ("prime", "composite"),
        ("even", "odd"),
        ("rational", "irrational"),
        ("finite", "infinite"),
        ("possible", "impossible"),
        ("plausible", "implausible"),
        ("valid", "invalid"),
        ("legal", "illegal"),
        ("accurate", "inaccurate"),
        ("visible", "invisible"),
    )
    for a, b in ((x, y), (y, x))
}
#: "Does X tell the truth?" (BIG-bench's web of lies) answered "X lies" / "X is truthful": the
#: answer's idiom rewritten to the question's words before its clauses are read.
_LIES = re.compile(r"(?i)\b(?:lies|is\s+lying|is\s+a\s+liar|is\s+(?:not|n't)\s+truthful|is\s+dishonest)\b")
_TRUTHFUL = re.compile(r"(?i)\b(?:is\s+truthful|is\s+honest|tells\s+the\s+truth|is\s+telling\s+the\s+truth)\b")
_CONTRASTED = re.compile(
    r"(?i)(?:[,;]\s*|\s)(?:but|whereas|while|however,?|actually,?|in\s+fact,?)\s+(?P<subj>(?:[A-Z][\w'’-]*\s*){1,3}?)\s*"
    r"(?:(?P<neg>" + _NEG_AUX + r")|(?P<aux>is|are|was|were)(?P<not>\s+not)?)\s+(?P<pred>[^,.;:!?\n]{1,60})"
)
#: Where a clause's own predicate ends and a reason or comment begins ("prime because 3 divides it").
_SUBORDINATE = re.compile(
    r"\b(?:because|since|as|so|but|which|that|and|although|though|while|when|if|unless|due|given)\b"
)
#: Words a predicate may add to the question's without changing it ("51 is not a prime number").
_GENERIC = frozenset("number numbers one thing things case really actually always necessarily true fact".split())
_LEADING_LINK = re.compile(r"(?i)^(?:(?:and|but|so|hence|thus|therefore|because|since)\s+)+")
_PRONOUNS = frozenset("it they he she this that these those".split())


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP}


def short_aux(sentence: str) -> bool | None:
    """The polarity of a short pronoun-and-auxiliary answer ("It will." true, "It doesn't." false)."""
    if len(sentence.split()) > 4:
        return None
    m = _SHORT.match(sentence)
    if not m:
        return None
    return not (m["neg"] or m["not"])


def _question(query: str) -> tuple[str, set[str]] | None:
    found = None
    for m in _QUESTION.finditer(query[-2000:]):
        found = m
    if found is None:
        return None
    return found["aux"].lower(), _words(found["rest"])


def predicate_polarity(query: str | None, text: str) -> tuple[bool, str] | None:
    """``(value, clause)`` when a clause of ``text`` answers the question's predicate (see the module
    docstring), else ``None``."""
    if not query:
        return None
    q = _question(query)
    if q is None:
        return None
    aux, qwords = q
    text = text[:1500]
    if aux in ("do", "does") and {"tell", "truth"} <= qwords:
        text = _TRUTHFUL.sub("does tell the truth", _LIES.sub("does not tell the truth", text))
    found: list[tuple[bool, str]] = []
    for m in _CLAUSE.finditer(text):
        if text[m.end() : m.end() + 2].lstrip().startswith("?"):
            continue  # "It is composite? No, 91 is prime.": a question, not a claim
        said = "is" if m["cl"] else (m["aux"] or m["neg"] or "").lower()
        if not said.startswith(aux[:2]) and not (
            aux in ("is", "are", "was", "were") and said.startswith(("is", "are", "was", "were"))
        ):
            continue
        named = _LEADING_LINK.sub("", m["subj"])  # ", so it's composite": the link word is not the subject
        subj = _words(named) or {w for w in re.findall(r"[a-z]+", named.lower()) if w in _PRONOUNS}
        if not subj or not (subj <= qwords or subj <= _PRONOUNS):
            continue
        own = _SUBORDINATE.split(m["pred"].lower().split("(")[0], maxsplit=1)[0]  # a parenthesis is a comment
        pred = [w for w in re.findall(r"[a-z0-9]+", own) if w not in _STOP]
        flipped = bool(pred) and pred[0] not in qwords and ANTONYMS.get(pred[0]) in qwords
        if flipped:
            pred[0] = ANTONYMS[pred[0]]
        if not pred or pred[0] not in qwords or not set(pred) - _GENERIC <= qwords:
            continue
        found.append(((not (m["neg"] or m["not"])) != flipped, m.group(0).strip(" ,;:(—–")))
    if found:
        # "Millie lies — wait, no, Millie tells the truth": clauses that disagree commit to neither
        return found[0] if len({v for v, _ in found}) == 1 else None
    for m in _CONTRASTED.finditer(text[:1500]):
        subj = _words(m["subj"])
        pred_words = _words(m["pred"])
        if subj and pred_words and not subj & qwords and pred_words <= qwords and not (m["neg"] or m["not"]):
            return False, m.group(0).strip(" ,;:(")
    return None


_LEADING_ADJECTIVE = re.compile(r"(?i)^[\W_]*(?P<w>[a-z]+)[\W_]*(?:[.,;:!—–]|\s-\s|$)")


def leading_predicate(query: str | None, text: str) -> tuple[bool, str] | None:
    """``(value, word)`` when ``text`` opens with the question's predicate adjective standing alone
    ("Plausible." for "Is the following sentence plausible?") or its opposite (:data:`ANTONYMS`:
    "Implausible — Messi plays football"), else ``None``."""
    m = _LEADING_ADJECTIVE.match(text) if not text.rstrip().endswith("?") else None  # "Plausible? Not really."
    q = _question(query) if query and m else None
    if m is None or q is None:
        return None
    word = m["w"].lower()
    if word in ANTONYMS and word in q[1]:
        return True, m["w"]
    if ANTONYMS.get(word) in q[1]:
        return False, m["w"]
    return None


def said_verdict(text: str) -> tuple[bool, str] | None:
    """``(value, phrase)`` for the last yes/no given as what is said ("would answer No"), when no
    turn (:data:`SAID_TURNED`) follows it in the answer."""
    found = None
    for m in SAID_VERDICT.finditer(text[-3000:]):
        found = m
    tail = text[-3000:]
    if (
        found is None
        or SAID_TURNED.search(tail[found.end() :])
        or re.search(r"(?i)(?:\bnot|\bnever|n't)\s+(?:\w+\s+)?$", tail[max(0, found.start() - 20) : found.start()])
    ):
        return None
    return found["w"].lower() == "yes", found.group(0)
