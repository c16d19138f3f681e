"""What every answer extractor shares (:mod:`harness.metrics.extraction` defines the rules and their precedence).

The :class:`Extraction` record and rule confidences, the answer cap, normalisation and phrase
matching for short answers, LaTeX clean-up, and the readers of cues every type uses: the declared
answer line, ``\\boxed{...}``, answer cues and their clauses, sentences, bold spans, conclusion and
correction words, negated parts, and the test for a truncated answer.
"""

from __future__ import annotations

import re
import unicodedata

from harness.common.model import Frozen
from harness.metrics.declared import declared_line
from harness.metrics.number_cues import GSM8K_LINE

#: Candidates longer than this are never matched by containment (see :func:`phrase_match`).
SHORT_ANSWER_WORDS = 15
#: Answers longer than this many characters are cut (head + tail) before extraction.
MAX_ANSWER_CHARS = 32_000
#: How much of the start of a cut answer is kept.
HEAD_CHARS = 4_000
#: The longest clause read after a cue.
CLAUSE_CHARS = 400
#: Only the last this many answer cues are read (an answer rarely restates its answer more often).
MAX_CUES = 20
#: The longest first sentence the ``leading`` number rule accepts, in words.
LEADING_WORDS = 20

#: Words that stop containment matching: negations, and alternatives that hedge between answers.
BLOCKING_WORDS = frozenset(
    "not no never neither nor none nothing cannot cant isnt arent wasnt werent dont doesnt didnt "
    "wont wouldnt couldnt shouldnt hasnt havent hadnt aint incorrect wrong or either tie tied".split()
)

#: How much each rule is trusted (0-1); ``ambiguous`` and ``none`` are 0.
CONFIDENCE: dict[str, float] = {
    "declared": 0.97,
    "boxed": 0.95,
    "answer_cue": 0.9,
    "whole": 0.9,
    "bare_letter": 0.9,
    "fenced_defines": 0.9,
    "bold": 0.8,
    "marked": 0.8,
    "equals": 0.75,
    "conclusion_cue": 0.7,
    "conclusion": 0.7,
    "unfenced_defines": 0.75,
    "whole_answer": 0.7,
    "leading": 0.6,
    "last_mention": 0.6,
    "first_python_block": 0.5,
    "first_block": 0.4,
    "last_new_number": 0.55,
    "predicate": 0.55,
    "last_number": 0.5,
    "first_sentence": 0.5,
    "model": 0.5,
    "ambiguous": 0.0,
    "none": 0.0,
}


class Extraction(Frozen):
    """What was taken from an answer, how, how surely, and why.

    Args:
        value: the extracted text — a number as written (``$1,234.50``), a choice key as it is
            spelled in the options, ``true``/``false``, a short answer, or a code block; ``None``
            when nothing fit or the answer is ambiguous.
        method: the rule that produced it (``boxed``, ``answer_cue``, ``bold``, ``equals``,
            ``conclusion_cue``, ``leading``, ``last_number``, ``bare_letter``, ``last_mention``,
            ``fenced_defines``, ``model``, ``ambiguous``, ``none``, ...).
        detail: a readable explanation, e.g. ``"'9' after the cue 'so'"``.
        confidence: how much the rule is trusted, 0-1 (:data:`CONFIDENCE`); ``None`` in results
            written before it was recorded.
        capped: the answer was longer than :data:`MAX_ANSWER_CHARS` and only its head and tail were read.
        declared: the value was read from the declared answer line (``Answer: ...``,
            :mod:`harness.metrics.declared`), for ``python`` from a fenced python block.
    """

    value: str | None
    method: str
    detail: str
    confidence: float | None = None
    capped: bool = False
    declared: bool = False


def extracted(value: str | None, method: str, detail: str, capped: bool = False, declared: bool = False) -> Extraction:
    if capped:
        detail += f" (the answer was longer than {MAX_ANSWER_CHARS} characters: only its start and end were read)"
    return Extraction(
        value=value,
        method=method,
        detail=detail,
        confidence=CONFIDENCE.get(method, 0.5),
        capped=capped,
        declared=declared,
    )


def cap_text(text: str) -> tuple[str, bool]:
    """``text`` cut to its first :data:`HEAD_CHARS` and last characters when longer than
    :data:`MAX_ANSWER_CHARS`, and whether it was cut."""
    if len(text) <= MAX_ANSWER_CHARS:
        return text, False
    return text[:HEAD_CHARS] + "\n…\n" + text[-(MAX_ANSWER_CHARS - HEAD_CHARS) :], True


#: A mark that picks one item of a list or table ("- 1945 ← end of the war", "| stack | LIFO ✅ |",
#: "- Neon ← going with this one", "- [x] Jupiter").
_PICK_MARK = re.compile(r"\s*(?:←|⟵|<-{1,2}(?!\w)|✅|✔️?|☑️?|✓|\[[xX]\](?=\s*\S))")
#: A check tick (✓, ✔): a pick only when every other candidate is marked as rejected, since it also
#: ticks a verified step ("Check: 21 + 29 = 50 ✓").
_TICK = re.compile(r"✔️?|✓")
#: A mark or a verdict that rejects an item ("❌", "✗", "[ ]", a cell or a value "no" / "false").
_REJECT_MARK = re.compile(r"❌|✗|✘|✖|\[ \]")
_VERDICT = re.compile(r"(?i)^(?P<pos>yes|true|correct|right|✓|✔️?|✅)$|^(?:no|false|wrong|incorrect|✗|✘|❌)$")
#: A line of a list, a checklist, or a table ("- …", "1. …", "[x] …", "| … |").
_LIST_LINE = re.compile(r"\s*(?:[-*+•]|\d+[.)]|\||\[[ xX]\])\s*\S")
#: A line giving one candidate a verdict: "Option B: yes — by far", "A: ✗", "- Sydney: no".
_KEYED_VERDICT = re.compile(
    r"^\s*(?:[-*+•]\s+)?(?P<key>[^:\n|]{1,40}?)\s*:\s*(?P<v>yes|no|true|false|correct|wrong|incorrect|✓|✔️?|✗|✘|❌|✅)"
    r"(?=$|[\s.,;—–(-])",
    re.IGNORECASE,
)


#: Prose after a list that concludes or commits on its own ("Majority goes to C.", "The chair picks
#: Sydney.", "I'd go with B"): the list's mark then does not decide.
_CONCLUDES_AFTER = re.compile(
    r"(?i)\b(?:goes\s+to|go(?:es)?\s+with|sides?\s+with|picks?|chooses?|choice|winner|wins|majority|"
    r"overrul\w*|decid\w*|decision|verdict|ruling|consensus|settles?\s+on|answer|but|however|instead|actually)\b"
)


def _candidates(text: str) -> list[tuple[str, str | None, bool | None]]:
    """The candidate lines of a list, checklist, table or verdict record: ``(line, item, verdict)``,
    the verdict ``True`` / ``False`` when a table cell or a keyed value gives one, else ``None``
    (the item is then read from the mark)."""
    lines = text.split("\n")
    found: list[tuple[str, str | None, bool | None]] = []
    for i, line in enumerate(lines):
        keyed = _KEYED_VERDICT.match(line)
        if keyed and not line.lstrip().startswith("|"):
            found.append((line, keyed["key"].strip(MARKUP), _VERDICT.match(keyed["v"])["pos"] is not None))  # type: ignore[index]
            continue
        if not _LIST_LINE.match(line):
            continue
        if line.lstrip().startswith("|"):
            if re.fullmatch(r"[\s|:\-]+", line):
                continue  # a table's separator row
            if i + 1 < len(lines) and re.fullmatch(r"\s*\|?[\s|:\-]*-[\s|:\-]*", lines[i + 1]):
                continue  # a table's header row
            cells = [c.strip().strip(MARKUP) for c in line.strip().strip("|").split("|")]
            verdicts = [(j, _VERDICT.match(c)) for j, c in enumerate(cells)]
            judged = [(j, m) for j, m in verdicts if m]
            if len(judged) == 1:
                j, m = judged[0]
                item = " ".join(c for k, c in enumerate(cells) if k != j and c)
                found.append((line, item or None, m["pos"] is not None))
                continue
        found.append((line, None, None))
    return found


def marked_lines(text: str) -> list[str]:
    """The lines of a list or table (two or more lines) that carry a picking mark."""
    lines = [ln for ln in text.split("\n") if _LIST_LINE.match(ln)]
    return [ln for ln in lines if _PICK_MARK.search(ln)] if len(lines) >= 2 else []


def marked_item(text: str, strict: bool = False) -> str | None:
    """The item a list, checklist, table or verdict record picks, else ``None``.

    Candidates are the lines of a list, a checklist or a table (not its header row) and lines that
    give one candidate a verdict ("Option B: yes", "A: ✗"). Exactly one of two or more candidates
    must be picked: by a picking mark (an arrow pointing back at it, ✅, ☑, a checked box ``[x]``),
    or by a positive verdict — a table cell or a keyed value "yes" / "true" / "correct" / ✓ — or a
    check tick (✓, ✔) when every other candidate is rejected (❌, ✗, an empty box ``[ ]``, a
    verdict "no" / "false"). ``strict`` (for numbers) takes a check tick only that way too, and
    never an item that computes or checks ("= 42", "check", "verify"). Prose after the list that
    concludes, commits or turns on its own ("Majority goes to C.", "so …", "but …") decides
    instead: no item then. The item is the line
    without its list marker, table bars and the mark with what follows it (the text after the mark
    when nothing comes before it: "[x] Jupiter"); for a verdict, the other cells of its row or the
    key before its colon."""
    cands = _candidates(text)
    if len(cands) < 2:
        return None
    tail = text[text.rfind(cands[-1][0]) + len(cands[-1][0]) :]
    if _CONCLUDES_AFTER.search(tail) or CONCLUSION.search(tail):
        return None  # "…\n\nMajority goes to C.": what follows the list decides, not its mark
    picked: list[tuple[str, str | None, bool]] = []  # (line, item, by a strong mark)
    rejected = 0
    for line, item, verdict in cands:
        mark = _PICK_MARK.search(line)
        if verdict is True:
            picked.append((line, item, False))
        elif verdict is False or _REJECT_MARK.search(line):
            rejected += 1
        elif mark is not None:
            tick = _TICK.fullmatch(mark.group(0).strip()) is not None
            picked.append((line, None, not tick or not strict))
    if len(picked) != 1:
        return None
    line, item, strong = picked[0]
    if not strong and rejected != len(cands) - 1:
        return None
    if item is None:
        mark = _PICK_MARK.search(line)
        assert mark is not None
        before = re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", line[: mark.start()])
        item = " ".join(before.replace("|", " ").split()).strip(MARKUP + ".,;:—–-")
        if not item:
            after = re.split(r"\s[—–-]\s|\(", line[mark.end() :])[0]
            item = " ".join(after.replace("|", " ").split()).strip(MARKUP + ".,;:—–-")
    if strict and re.search(r"(?i)=|\bcheck|\bverif", item or ""):
        return None
    return item or None


def quoted(text: str, limit: int = 60) -> str:
    flat = " ".join(text[: limit * 4].split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


_REPLY = re.compile(r"(?i)^\W*(?:well|actually|rather|instead)\b[\s,.!:;—–-]*")


def declared_clause(text: str) -> str | None:
    """The value of the declared answer line (:func:`harness.metrics.declared.declared_line`), cut
    to its first sentence, or ``None`` without one. A value that asks and then answers ("Jupiter?
    No — Saturn.") is read after its last question mark ("No — Saturn"; a yes/no there is kept,
    since for a yes/no question it is the answer)."""
    line = declared_line(text)
    if line is None or not line.value:
        return None
    value = line.value
    asked = value.rfind("?")
    if 0 <= asked < len(value) - 1 and value[asked + 1 :].strip(MARKUP + ".!"):
        rest = value[asked + 1 :]
        value = _REPLY.sub("", rest, count=1) or rest
    return first_clause(value) or value


def as_declared(ex: Extraction) -> Extraction:
    return ex.model_copy(update={"declared": True, "detail": "on the declared answer line: " + ex.detail})


def normalize_answer(text: str) -> str:
    """Fold an answer for comparison: NFKC, case-fold, markdown and punctuation, articles, spaces.

    Periods and apostrophes vanish (``U.S.A.`` -> ``usa``, ``don't`` -> ``dont``) except between
    digits (``3.14`` stays); every other punctuation mark becomes a space except between digits
    (``1,000`` stays); the articles "a", "an" and "the" are dropped wherever they stand alone;
    whitespace collapses to single spaces.
    """
    s = unicodedata.normalize("NFKC", text).casefold()
    s = s.replace("\u2019", "'").replace("\u2018", "'")
    s = re.sub(r"(?<!\d)[.']|[.'](?!\d)", "", s)
    s = "".join(ch if (ch.isalnum() or ch.isspace() or ch in ".,") else " " for ch in s)
    s = re.sub(r"(?<!\d),|,(?!\d)", " ", s)
    words = [w for w in s.split() if w not in ("a", "an", "the")]
    return " ".join(words)


#: Marks that make a different answer when they open or close a token ("O-" is not "O", "C++" not
#: "C", "-5" not "5"); the minus sign U+2212 counts as "-".
SIGNIFICANT_MARKS = "+-#"


def _marked_tokens(expected: str) -> list[str]:
    """The tokens of ``expected`` that open or close on one of :data:`SIGNIFICANT_MARKS` and hold a
    letter or digit ("O-", "C++", "C#", "A+", "-5"); a mark inside a token ("self-driving") is not one."""
    tokens = unicodedata.normalize("NFKC", expected).replace("\u2212", "-").split()
    return [
        t
        for t in (tok.strip("\"'“”‘’()[]*_`.,;:!?") for tok in tokens)
        if t and (t[0] in SIGNIFICANT_MARKS or t[-1] in SIGNIFICANT_MARKS) and any(c.isalnum() for c in t)
    ]


def _drops_mark(expected: str, candidate: str) -> str | None:
    """The first marked token of ``expected`` (:func:`_marked_tokens`) that ``candidate`` does not
    hold with its mark (case-folded; a letter or digit may not touch it on the side of a letter
    or digit), or ``None``: "O" drops the mark of "O-", "O-negative" keeps it."""
    text = unicodedata.normalize("NFKC", candidate).replace("\u2212", "-")
    for tok in _marked_tokens(expected):
        before = r"(?<!\w)" if tok[0].isalnum() else r"(?<![\w" + re.escape(SIGNIFICANT_MARKS) + "])"
        after = r"(?!\w)" if tok[-1].isalnum() else r"(?![" + re.escape(SIGNIFICANT_MARKS) + "])"
        if not re.search(before + re.escape(tok) + after, text, re.IGNORECASE):
            return tok
    return None


def _adds_mark(expected: str, candidate: str) -> str | None:
    """The first marked token of ``candidate`` (:func:`_marked_tokens`: "C++", "O-", "-5") whose
    letters and digits, without the mark, are a word of ``expected`` that ``expected`` itself does
    not write with that mark, or ``None``: "C++" is another language than "C", though both
    normalize to the same word. A token the candidate rejects ("not C++", "rather than C#") is not
    one it gives."""
    words = normalize_answer(expected).split()
    held = {t.casefold() for t in _marked_tokens(expected)}
    given = re.sub(r"(?i)\b(?:not|n't|rather than|instead of|unlike)\s+\S+", " ", candidate)
    for tok in _marked_tokens(given):
        core = tok.strip(SIGNIFICANT_MARKS)
        if core and normalize_answer(core) in words and tok.casefold() not in held:
            return tok
    return None


def _exact_match(expected: str, candidate: str) -> tuple[bool, str]:
    """:func:`phrase_match` without normalization: equal, or ``expected`` as written (case and marks
    kept) standing as a whole token — between spaces, an opening parenthesis before it and a
    punctuation mark after it — in a candidate of at most :data:`SHORT_ANSWER_WORDS` words whose rest
    holds none of :data:`BLOCKING_WORDS` ("Sodium is Na." gives "Na"; "NaCl", "na", "'list'" in
    "<class 'list'>" and "not Na" do not)."""
    if candidate == expected:
        return True, "equal (exact, not normalized)"
    if not expected:
        return False, "the expected answer is empty"
    token = re.compile(r"(?<![^\s(])" + re.escape(expected) + r"(?![^\s.,;:!?)])")
    if not token.search(candidate):
        return False, f"{quoted(expected)} is not in {quoted(candidate)} as written (exact comparison, not normalized)"
    words = normalize_answer(candidate).split()
    if len(words) > SHORT_ANSWER_WORDS:
        return False, f"{quoted(expected)} appears as written, but the answer has {len(words)} words"
    blocking = sorted({w for w in normalize_answer(token.sub(" ", candidate)).split() if w in BLOCKING_WORDS})
    if blocking:
        return False, f"{quoted(expected)} appears as written, but the answer also says {blocking}"
    return (
        True,
        f"{quoted(expected)} appears as written (case kept) in the {len(words)}-word answer {quoted(candidate)}",
    )


def phrase_match(expected: str, candidate: str, normalize: bool = True) -> tuple[bool, str]:
    """Whether ``candidate`` gives the answer ``expected``, with the reason in words.

    With ``normalize`` (the default) both sides go through :func:`normalize_answer`; they match when

    1. they are equal, or
    2. the candidate has at most :data:`SHORT_ANSWER_WORDS` words, the expected phrase occurs in it
       as whole words, and what is left of the candidate once the phrase is removed holds none of
       :data:`BLOCKING_WORDS` (negations such as "not", "isn't", "never", and "or"/"either" or
       "tie"/"tied", which hedge between answers: "a tie between India and China"). So "It is
       Paris." matches "Paris", while "not Paris", "Paris or Lyon" and "Lyon, not Paris" do not.

    Before both, normalization must not have made the match: an expected value with a token that
    opens or closes on a mark of :data:`SIGNIFICANT_MARKS` ("O-", "C++", "C#", "A+", "-5") matches
    only a candidate that holds that token with its mark, since "O" is another blood group and "C"
    another language, though both normalize to the same word; and, the other way round, a candidate
    whose marked token is, without its mark, a word of the expected value ("C++" or "C#" for "C",
    "O-" for "O", "-5" for "5") does not match it (:func:`_adds_mark`).

    Without ``normalize`` case and marks count: the stripped strings are equal, or ``expected`` as
    written stands as a whole token (between spaces, or before a punctuation mark) in a candidate of at
    most :data:`SHORT_ANSWER_WORDS` words with no blocking word in the rest ("Sodium is Na." gives
    "Na"; "NaCl", "na", "not Na" do not).

    Args:
        expected: the expected answer.
        candidate: the extracted answer.
        normalize: fold case, punctuation and articles and allow containment.
    """
    if not normalize:
        return _exact_match(expected.strip(), candidate.strip())
    exp, cand = normalize_answer(expected), normalize_answer(candidate)
    if not exp:
        return False, "the expected answer is empty after normalization"
    dropped = _drops_mark(expected, candidate)
    if dropped is not None:
        return False, f"{quoted(dropped)} has a mark that makes it another answer, and {quoted(candidate)} drops it"
    added = _adds_mark(expected, candidate)
    if added is not None:
        return False, f"{quoted(added)} has a mark that makes it another answer than {quoted(expected)}"
    if exp == cand:
        return True, f"equal after normalization ({quoted(cand)})"
    words = cand.split()
    pattern = re.compile(r"(?<!\S)" + re.escape(exp) + r"(?!\S)")
    if not pattern.search(cand):
        return False, f"{quoted(exp)} is not in {quoted(cand)} (normalized)"
    if len(words) > SHORT_ANSWER_WORDS:
        return False, (
            f"{quoted(exp)} appears, but the answer has {len(words)} words "
            f"(containment counts only up to {SHORT_ANSWER_WORDS})"
        )
    rest = pattern.sub(" ", cand).split()
    blocking = sorted({w for w in rest if w in BLOCKING_WORDS})
    if blocking:
        return False, f"{quoted(exp)} appears, but the answer also says {blocking} (negation or alternative)"
    return True, f"{quoted(exp)} appears as a whole phrase in the {len(words)}-word answer {quoted(cand)}"


def _mixed(m: re.Match[str]) -> str:
    whole, num, den = int(m[1]), int(m[2]), int(m[3])
    return f"{whole + num / den:.12g}" if den else m.group(0)


def _leaf(part: str) -> str:
    """A fraction's numerator or denominator, in parentheses when it is more than one term."""
    return part if re.fullmatch(r"[-−]?[\w.\\]+", part) else f"({part})"


def _slashed(m: re.Match[str]) -> str:
    """``\\frac{a}{b}`` as ``a/b``; ``\\frac{3-2}{2}`` as ``(3-2)/2``, so precedence is kept."""
    return f"{_leaf(m[1])}/{_leaf(m[2])}"


def clean_latex(text: str) -> str:
    text = re.sub(r"(?<![\d.])(\d{1,9})\s*\\[dt]?frac\s*\{\s*(\d{1,9})\s*\}\s*\{\s*(\d{1,9})\s*\}", _mixed, text)
    text = re.sub(r"\\[dt]?frac\s*\{\s*([^{}]{0,40}?)\s*\}\s*\{\s*([^{}]{0,40}?)\s*\}", _slashed, text)
    text = re.sub(r"\\(?:text|mathrm|textbf|mathbf|operatorname)\s*\{([^{}]{0,200})\}", r"\1", text)
    text = text.replace("\\%", "%").replace("\\$", "$").replace("\\,", ",").replace("\\!", "")
    text = text.replace("{,}", ",").replace("\\times", "×").replace("\\cdot", "×").replace("\\approx", "≈")
    return text.replace("\\(", " ").replace("\\)", " ").replace("\\[", " ").replace("\\]", " ")


def last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    brace = text.find("{", start, start + 16)
    if brace < 0:
        return None
    depth = 0
    for i in range(brace, min(len(text), brace + CLAUSE_CHARS)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[brace + 1 : i].strip()
    return None


MARKUP = " \t*_`\"'“”‘’>$"
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_ANSWER_CUE = re.compile(
    r"(?i)\b(?P<cue>(?:final\s+|correct\s+|right\s+|short\s+)?answer)[*_]*"
    r"(?:\s+(?:is|would\s+be|will\s+be|was)\b[ \t]*:?|[ \t]*[:=]"
    r"|,?[ \t]+(?:first|up[ \t]+front|in[ \t]+short|in[ \t]+brief|briefly|in[ \t]+one[ \t]+line)[ \t]*:)"
)
_ANSWER_HEADING = re.compile(
    r"(?im)^[ \t>#*_-]*(?P<cue>(?:final\s+|short\s+)?answer|(?:final\s+)?results?|verdict|bottom\s+line|tl;\s?dr|"
    r"résultat|ergebnis|resultado|risultato|antwort|réponse|respuesta|risposta)[ \t*_:]*$"
)
#: A line-initial label "Final:" ("Final verdict:", "Result:", "Choice:", "TL;DR:", a JSON key
#: ``"final":``), the way a council chairman, a debate summary or a tool states its result: an
#: answer cue like "Final answer:".
_FINAL_LABEL = re.compile(
    r"(?im)(?:^|(?<=[.!?]\s)|(?<=[{,]))[ \t>#*_-]*[\"']?"
    r"(?P<cue>final(?:\s+(?:verdict|pick|choice|call|result|ruling))?|"
    r"result|choice|verdict|pick|decision|selected|tl;\s?dr|tldr|bottom\s+line|ruling|consensus|"
    r"résultat|ergebnis|resultado|risultato|antwort|réponse|respuesta|risposta|"
    r"(?:council|jury|panel|chair(?:man|person)?(?:'s)?|majority)\s+(?:answer|verdict|decision|ruling|pick|choice|view))"
    r"[\"']?[*_]*[ \t]*:"
)
#: A label's clause that reports what others answered ("two members said …", "A and B voted for …").
_REPORTED = re.compile(
    r"(?i)\b(?:said|says|say|voted|vote|chose|picked|answered|proposed|argued|suggested|went\s+with)\b"
)
_NEGATED = re.compile(
    r"(?i)\(\s*(?:not|rather\s+than|instead\s+of|and\s+not)\b[^()]{0,200}\)"
    r"|(?:[,;]|\s[-–—])\s*(?:but\s+)?(?:not|rather\s+than|instead\s+of)\b[^,;.()\n]{0,200}"
)


def drop_negated(clause: str) -> str:
    """``clause`` without its negated parts ("(not X)", ", not X", "rather than X", "instead of X")."""
    return " ".join(_NEGATED.sub(" ", clause).split())


def first_clause(rest: str) -> str:
    rest = rest[:CLAUSE_CHARS].strip(MARKUP)
    m = next(
        (e for e in _SENTENCE_END.finditer(rest) if not (e.group(0) == "." and abbreviation_at(rest, e.end()))), None
    )
    return (rest[: m.start()] if m else rest).strip(MARKUP)


_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,2}[.)])[ \t]+")


def _next_line(text: str, pos: int) -> str:
    for _ in range(6):
        end = text.find("\n", pos, pos + CLAUSE_CHARS)
        line = text[pos : end if end >= 0 else pos + CLAUSE_CHARS]
        if line.strip(MARKUP):
            return line
        if end < 0:
            return ""
        pos = end + 1
    return ""


_REJECTED = re.compile(
    r"(?i)\b(?:but|which|that)\s+(?:that's|that\s+is|this\s+is|it's|it\s+is|is)\s+"
    r"(?:wrong|incorrect|a\s+mistake|mistaken|not\s+(?:right|correct))\b"
)
_HYPOTHETICAL = re.compile(
    r"(?i)\b(?:intuitive|tempting|obvious|naive|naïve|common|wrong|incorrect|initial|"
    r"first|quick|easy|expected|usual|simple|textbook|theoretical|conventional|classic|"
    r"traditional)\s+$"
)


def label_clause(text: str) -> str | None:
    """The clause of the last line-initial result label ("Final:", "Consensus:", "Verdict:", …;
    not a label reporting what others answered), else ``None``: what a regex case is anchored to
    when no answer line was declared."""
    found = None
    for m in list(_FINAL_LABEL.finditer(text))[-MAX_CUES:]:
        if text[m.start() : m.start() + 1] in ("{", ",") or text[m.start() - 1 : m.start()] in ("{", ","):
            continue  # a JSON field
        line_end = text.find("\n", m.end(), m.end() + CLAUSE_CHARS)
        clause = first_clause(text[m.end() : m.end() + CLAUSE_CHARS if line_end < 0 else line_end])
        if clause and not _REPORTED.search(clause):
            found = clause
    return found


def answer_cues(text: str) -> list[tuple[str, str]]:
    """The ``(cue, clause)`` pairs of explicit answer cues, in reading order.

    A cue is "answer is / was / would be / will be", "answer:" or "answer =" (optionally "final",
    "correct", "right", "short" answer; "answer first:", "answer in short:", "answer, briefly:"), a
    line that is only "Answer" / "Final answer" / "Result" / "Verdict" / "TL;DR" (or "Ergebnis",
    "Résultat", …: :data:`_ANSWER_HEADING`), a sentence-initial label "Final:" ("Final verdict:",
    "Final pick:", "Result:", "Choice:", "Verdict:", "TL;DR:", "Bottom line:"; a council's
    "Ruling:", "Consensus:", "Council answer:", "Majority view:"; also a JSON field ``"final":
    "yes"``, whose clause is the quoted value), or GSM8K's
    final line ``#### 42`` (a number after the four hashes, nothing else on the line). The
    clause is the rest of that sentence; when it is empty, the next non-empty line. Left out: cues
    whose clause starts with "not", clauses that reject themselves ("10 cents, but that's wrong"),
    and cues qualified as a trap or someone else's ("the intuitive / tempting / naive / common /
    simple / textbook answer is"), and a label whose clause reports what others answered ("Council
    verdict: two members said "skin", one said "liver""). Only the last :data:`MAX_CUES` cues are kept.
    """
    found: list[tuple[int, str, str]] = []
    for m in list(_ANSWER_CUE.finditer(text))[-MAX_CUES:]:
        line_end = text.find("\n", m.end(), m.end() + CLAUSE_CHARS)
        rest = text[m.end() : m.end() + CLAUSE_CHARS if line_end < 0 else line_end]
        clause = first_clause(rest) or first_clause(_next_line(text, m.end()))
        found.append((m.start(), " ".join(m.group(0).split()), clause))
    for m in list(_ANSWER_HEADING.finditer(text))[-MAX_CUES:]:
        after = _next_line(text, m.end())
        if not re.search(r"(?i)answer", m["cue"]) and _LIST_ITEM.match(after):
            continue  # "## Results" over a list ("- distance: 180 km", "- speed: 72 km/h"): not one value
        found.append((m.start(), m["cue"], first_clause(after)))
    for m in list(_FINAL_LABEL.finditer(text))[-MAX_CUES:]:
        line_end = text.find("\n", m.end(), m.end() + CLAUSE_CHARS)
        rest = text[m.end() : m.end() + CLAUSE_CHARS if line_end < 0 else line_end]
        quoted_value = re.match(r"\s*\"([^\"\n]{1,200})\"", rest)  # a JSON field: {"final": "yes", …}
        clause = quoted_value[1].strip() if quoted_value else first_clause(rest)
        if not quoted_value and _REPORTED.search(clause or ""):
            continue  # "Council verdict: two members said "skin", one said "liver"": a report, not a value
        found.append((m.start(), m["cue"], clause or first_clause(_next_line(text, m.end()))))
    if "####" in text:
        found += [(m.start(), "####", m["value"]) for m in list(GSM8K_LINE.finditer(text))[-MAX_CUES:]]
    found.sort(key=lambda t: t[0])
    return [
        (cue.strip(" *_:=").lower(), clause)
        for pos, cue, clause in found[-MAX_CUES:]
        if clause
        and not re.match(r"(?i)not\b", clause)
        and not _REJECTED.search(clause)
        and not _HYPOTHETICAL.search(text[max(0, pos - 24) : pos])
    ]


_DOTTED = re.compile(r"(?:\b[A-Za-z]\.){2,}$|\b(?:etc|vs|approx|cf)\.$")
_TITLE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|Mt)\.$")


#: A day written as an ordinal before a month name, as in German and the Nordic languages ("4. Juli",
#: "24. desember").
_ORDINAL_DAY = re.compile(r"(?:^|[^\d.])\d{1,2}\.$")
_MONTH = re.compile(
    r"(?i)\s*(?:jan(?:uar|uary|vier)?|jänner|feb(?:ruar|ruary)?|mär(?:z)?|mar(?:ch|s)?|apr(?:il)?|mai|may|"
    r"jun(?:i|e)?|jul(?:i|y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|o[ck]t(?:ober)?|nov(?:ember)?|de[cz](?:ember)?|"
    r"desember|januari|februari|maart|mei|augustus)\b"
)


def abbreviation_at(text: str, pos: int) -> bool:
    """Whether the full stop that ends just before ``pos`` closes an abbreviation rather than a
    sentence: a title ("Dr. Smith", "St. Louis"), a day written as an ordinal before a month name
    ("Am 4. Juli 1776"), or a dotted abbreviation ("U.S.", "e.g.", "etc.") followed by a lower-case
    word or a digit ("the U.S. president")."""
    head = text[max(0, pos - 12) : pos]
    if _TITLE.search(head):
        return True
    if _ORDINAL_DAY.search(head) and _MONTH.match(text, pos):
        return True  # "Am 4. Juli 1776": a day written as an ordinal, not a sentence end
    after = text[pos : pos + 4].lstrip(" \t")
    return bool(_DOTTED.search(head)) and bool(after) and (after[0].islower() or after[0].isdigit())


def split_sentences(text: str) -> list[str]:
    """``text`` split into sentences: at line breaks, and after ". ! ? ;" followed by a space unless
    the full stop closes an abbreviation (:func:`abbreviation_at`)."""
    parts: list[str] = []
    start = 0
    for m in re.finditer(r"\n+|(?<=[.!?;])\s+", text):
        if m.group(0)[0] != "\n" and text[m.start() - 1] == "." and abbreviation_at(text, m.start()):
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_BOLD = re.compile(r"\*\*(?P<a>[^*\n]{1,120}?)\*\*|__(?P<b>[^_\n]{1,120}?)__")
CONCLUSION = re.compile(
    r"(?i)\b(?:therefore|thus|hence|so|consequently|in\s+total|altogether|overall|in\s+conclusion|"
    r"which\s+gives|(?<!after\s)(?<!before\s)(?<!when\s)(?<!while\s)(?<!by\s)(?<!without\s)giving|"
    r"(?:total|sum|result)\s+is)\b"
)
CORRECTION = re.compile(
    r"(?i)\b(?:actually|wait|correction|recount|recheck|re-check|instead|mistake|"
    r"on\s+second\s+thought|let\s+me\s+redo|I\s+was\s+wrong)\b"
)


def bold_spans(text: str) -> list[str]:
    return [(m["a"] or m["b"] or "").strip() for m in _BOLD.finditer(text)]


_DANGLING = re.compile(
    r"(?i)(?:[,:(\-–—=+×*/]|\b(?:the|a|an|and|or|so|we|to|of|is|are|was|be|then|which|that|next|first|because|"
    r"since|with|for|in|on|by|but|this|it|as|will|would|gives?|equals?|get|have|has|from|into|let's|let|now|its|"
    r"their|his|her|our|my))$"
)


def truncated(text: str) -> bool:
    """Whether ``text`` stops mid-sentence: no closing punctuation and a dangling last word or sign
    ("… so the", "… Next we", "… = ")."""
    tail = text[-200:].rstrip()
    return bool(tail) and not re.search(r"[.!?)\]}*_`\"'”’]$", tail) and bool(_DANGLING.search(tail))
