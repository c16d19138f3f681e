"""The five-component heuristic quality score of seed 002 (consensus voting), for any answer text.

Each component follows the seed's pseudocode and returns 0-100; ``overall`` is their weighted
sum (weights .25/.20/.20/.20/.15 by default) clamped to 0-100. The pseudocode leaves some
points open; the choices made here are:

- **Empty text.** A text with no words scores 0 on every component and overall (the seed's
  ``word_count == 0 -> 0`` rule of citation density, applied to all five; the pseudocode
  would otherwise divide by zero in semantic richness and give an empty answer 25 overall).
- **Sentences** are ``text.split('.')`` including empty pieces (the text after a final
  period counts as a sentence of zero words), exactly as written; the average sentence
  length is over all those pieces.
- **Contradictions** (``'however→definitely', 'but→obviously', ...``): the pairs are
  :data:`CONTRADICTION_PAIRS`; a pair counts once per sentence piece in which its first word
  occurs and its second word occurs after it (whole words, case-insensitive).
- **Transition words** (``['however', 'therefore', ...] in text.lower()``): the list is
  :data:`TRANSITIONS`, matched as whole words or phrases, not raw substrings (``thus`` is not
  found inside ``enthusiast``). The enumerators are ``first,`` / ``second,`` with their comma,
  so that "the first time" is not a transition.
- **Complexity markers** (``COUNT(['(', ':', ';'] IN text)``): the total number of
  occurrences of the three characters (at most 15 count, since the score is ``min(30, 2n)``).
- **Incomplete sentences** (``endswith(',', 'and', 'or', 'but')``): a sentence piece whose
  stripped text ends with a comma, or whose last word is ``and``, ``or`` or ``but``; a word that
  merely ends in those letters ("color", "brand") does not count.
- **Doubled words**, **brackets**, **paragraph** counts, **lexical diversity** and **word
  length** are exactly as written (whitespace words, punctuation attached).
- **Citations in a free-text answer** (:func:`detect_citations`): URLs (any ``scheme://``
  address, or ``www.``), author-year references inside parentheses (``(Smith 2023)``,
  ``(source: Smith 2023)``, ``(Smith et al., 2023; Jones 2024)`` counts two) and numeric
  bracket references (``[1]``, ``[2, 3]`` counts one). Every occurrence counts.
- **Long texts.** Only the first :data:`TEXT_LIMIT` characters are scored, and the record says so
  (``capped_at``). Every step is linear in the text (a contradiction pair is found with two
  searches, not a ``.*`` that backtracks; a URL scheme is at most 32 characters), so scoring a
  hostile answer takes at most a bounded time.
"""

from __future__ import annotations

import re
from statistics import fmean

from pydantic import model_validator

from harness.common.model import Frozen
from harness.common.weights import check_weights
from harness.records.scoreset import ScoreSet

#: The hedge-then-certainty pairs the seed calls contradictions (its first two, plus one more).
CONTRADICTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("however", "definitely"),
    ("but", "obviously"),
    ("although", "certainly"),
)
#: Transition words and phrases (whole-word matches in the lower-cased text).
TRANSITIONS: tuple[str, ...] = (
    "however",
    "therefore",
    "moreover",
    "furthermore",
    "consequently",
    "thus",
    "hence",
    "in addition",
    "additionally",
    "for example",
    "for instance",
    "as a result",
    "in contrast",
    "on the other hand",
    "nevertheless",
    "first,",
    "second,",
    "firstly",
    "secondly",
    "finally",
)
#: Words that leave a sentence unfinished when they end it.
DANGLING_WORDS = frozenset({"and", "or", "but"})
COMPLEX_MARKERS: tuple[str, ...] = ("(", ":", ";")
COMPONENTS: tuple[str, ...] = (
    "semantic_coherence",
    "citation_density",
    "semantic_richness",
    "answer_completeness",
    "error_freedom",
)
SCORE_PREFIX = "hq_"

#: Longest text scored, in characters (the rest is ignored and ``capped_at`` records it).
TEXT_LIMIT = 50_000

_URL = re.compile(r"\b[a-z][a-z0-9+.\-]{0,31}://[^\s<>\"'()\[\]]+|\bwww\.[^\s<>\"'()\[\]]+", re.IGNORECASE)
_PARENS = re.compile(r"\(([^()]*)\)")
_AUTHOR_YEAR = re.compile(
    r"\b[A-Z][\w'\u2019\-]*(?:\s+(?:et\s+al\.?|(?:and|&)\s+[A-Z][\w'\u2019\-]*))?,?\s+(?:1[5-9]|20)\d{2}[a-z]?\b"
)
_BRACKET_REF = re.compile(r"\[\d{1,4}(?:\s*[,\u2013\-]\s*\d{1,4})*\]")


def _phrase_re(phrase: str) -> re.Pattern[str]:
    end = "" if not phrase[-1].isalnum() else r"\b"
    return re.compile(r"\b" + re.escape(phrase) + end)


_TRANSITION_RES = tuple(_phrase_re(t) for t in TRANSITIONS)
_CONTRADICTION_RES = tuple(
    (re.compile(rf"\b{re.escape(a)}\b"), re.compile(rf"\b{re.escape(b)}\b")) for a, b in CONTRADICTION_PAIRS
)


class HeuristicWeights(Frozen):
    """Weights of the five components (seed 002 defaults); finite, non-negative, summing to 1 within 0.001."""

    semantic_coherence: float = 0.25
    citation_density: float = 0.20
    semantic_richness: float = 0.20
    answer_completeness: float = 0.20
    error_freedom: float = 0.15

    @model_validator(mode="after")
    def _valid(self) -> HeuristicWeights:
        check_weights(self.model_dump(), "heuristic quality weights")
        return self


class HeuristicQuality(Frozen):
    """The five component scores (each 0-100) and their weighted ``overall`` (0-100).

    ``capped_at``: the text was longer than this many characters and only its start was scored.
    """

    semantic_coherence: float
    citation_density: float
    semantic_richness: float
    answer_completeness: float
    error_freedom: float
    overall: float
    capped_at: int | None = None


def _clamp(x: float, low: float = 0.0, high: float = 100.0) -> float:
    return max(low, min(high, x))


def detect_citations(text: str) -> list[str]:
    """The citations in a free-text answer, in order of appearance (see the module docstring).

    Args:
        text: the answer.

    Returns:
        One string per occurrence: the URL (trailing ``.,;:!?`` removed), the ``Author Year``
        part of a parenthetical, or the whole ``[n]`` bracket.
    """
    found: list[tuple[int, str]] = []
    for m in _URL.finditer(text):
        found.append((m.start(), m.group(0).rstrip(".,;:!?")))
    for p in _PARENS.finditer(text):
        for m in _AUTHOR_YEAR.finditer(p.group(1)):
            found.append((p.start(1) + m.start(), m.group(0)))
    for m in _BRACKET_REF.finditer(text):
        found.append((m.start(), m.group(0)))
    return [s for _, s in sorted(found)]


def count_contradictions(text: str) -> int:
    """Sentence pieces (``text.lower().split('.')``) holding a contradiction pair in order, summed over pairs."""
    return sum(
        1
        for piece in text.lower().split(".")
        for first, second in _CONTRADICTION_RES
        if _in_order(piece, first, second)
    )


def _in_order(piece: str, first: re.Pattern[str], second: re.Pattern[str]) -> bool:
    """Whether ``second`` occurs after the first occurrence of ``first`` (two linear searches)."""
    m = first.search(piece)
    return m is not None and second.search(piece, m.end()) is not None


def has_transition(text: str) -> bool:
    """Whether any of :data:`TRANSITIONS` occurs as a whole word or phrase (case-insensitive)."""
    lower = text.lower()
    return any(rx.search(lower) for rx in _TRANSITION_RES)


def semantic_coherence(text: str, citation_count: int) -> float:
    """Component 1 (0-100): structure, development, sentence clarity, no contradictions, transitions, citations.

    Args:
        text: the answer.
        citation_count: citations in the answer (each adds 3, at most 20).

    +10 for more than one ``\\n\\n`` paragraph; +15 for more than 3 ``'.'`` pieces; +20 for an
    average of 12-20 words per piece; +20 without contradictions, else minus ``min(20, 5n)``;
    +15 with a transition word; ``+min(20, 3 * citation_count)``; clamped to 0-100.
    """
    if not text.split():
        return 0.0
    score = 0.0
    if len(text.split("\n\n")) > 1:
        score += 10
    sentences = text.split(".")
    if len(sentences) > 3:
        score += 15
    avg_length = fmean(len(s.split()) for s in sentences)
    if 12 <= avg_length <= 20:
        score += 20
    contradictions = count_contradictions(text)
    score += 20 if contradictions == 0 else -min(20, contradictions * 5)
    if has_transition(text):
        score += 15
    score += min(20, citation_count * 3)
    return _clamp(score)


def citation_density(text: str, citation_count: int) -> float:
    """Component 2 (0-100): citations per 100 whitespace words.

    Args:
        text: the answer (for its word count).
        citation_count: citations in the answer.

    0.8-1.2 per 100 words -> 100; 0.5-1.5 -> 85; 0.3-2.0 -> 70; otherwise 50 with any citation
    and 30 without; 0 for a text without words.
    """
    word_count = len(text.split())
    if word_count == 0:
        return 0.0
    per_100 = citation_count / word_count * 100
    if 0.8 <= per_100 <= 1.2:
        return 100.0
    if 0.5 <= per_100 <= 1.5:
        return 85.0
    if 0.3 <= per_100 <= 2.0:
        return 70.0
    return 50.0 if citation_count > 0 else 30.0


def semantic_richness(text: str) -> float:
    """Component 3 (0-100): lexical diversity + average word length + complexity markers.

    Args:
        text: the answer; words are ``text.lower().split()``.

    Diversity (unique/total words) 0.4-0.6 -> 40, 0.3-0.7 -> 30, >= 0.2 -> 20, else 0. Average
    word length 4.5-5.5 -> 30, 4.0-6.0 -> 20, > 3.5 -> 10, else 0. Markers: ``min(30, 2n)`` for
    ``n`` occurrences of ``(``, ``:`` and ``;``. 0 for a text without words.
    """
    words = text.lower().split()
    if not words:
        return 0.0
    diversity = len(set(words)) / len(words)
    if 0.4 <= diversity <= 0.6:
        diversity_score = 40.0
    elif 0.3 <= diversity <= 0.7:
        diversity_score = 30.0
    elif diversity >= 0.2:
        diversity_score = 20.0
    else:
        diversity_score = 0.0
    avg_length = fmean(len(w) for w in words)
    if 4.5 <= avg_length <= 5.5:
        length_score = 30.0
    elif 4.0 <= avg_length <= 6.0:
        length_score = 20.0
    elif avg_length > 3.5:
        length_score = 10.0
    else:
        length_score = 0.0
    markers = sum(text.count(m) for m in COMPLEX_MARKERS)
    structure_score = min(30.0, markers * 2.0)
    return _clamp(diversity_score + length_score + structure_score)


def answer_completeness(text: str, expected_aspects: int = 3) -> float:
    """Component 4 (0-100): non-empty lines against the expected number of aspects.

    Args:
        text: the answer; its "paragraphs" are the non-blank lines of ``text.split('\\n')``.
        expected_aspects: how many aspects a complete answer covers (seed default 3).

    ``>= expected`` -> 100; ``>= expected-1`` -> 85; ``>= expected-2`` -> 70; ``>= 2`` -> 50
    (reachable only when ``expected_aspects >= 5``); otherwise 25. 0 for a text without words.
    """
    if expected_aspects < 1:
        raise ValueError(f"expected_aspects must be at least 1, got {expected_aspects}")
    if not text.split():
        return 0.0
    paragraphs = sum(1 for p in text.split("\n") if p.strip())
    if paragraphs >= expected_aspects:
        return 100.0
    if paragraphs >= expected_aspects - 1:
        return 85.0
    if paragraphs >= expected_aspects - 2:
        return 70.0
    if paragraphs >= 2:
        return 50.0
    return 25.0


def _is_incomplete(piece: str) -> bool:
    stripped = piece.strip()
    if not stripped:
        return False
    if stripped.endswith(","):
        return True
    return stripped.split()[-1].lower() in DANGLING_WORDS


def error_freedom(text: str) -> float:
    """Component 5 (0-100): 100 minus penalties for incomplete sentences, doubled words, unbalanced brackets.

    Args:
        text: the answer.

    ``-min(30, 5n)`` for ``n`` incomplete ``'.'`` pieces; ``-min(20, 3n)`` for ``n`` adjacent
    repeated whitespace words (case-insensitive); ``-10`` when ``[`` and ``]`` counts differ.
    0 for a text without words.
    """
    words = text.split()
    if not words:
        return 0.0
    score = 100.0
    incomplete = sum(1 for piece in text.split(".") if _is_incomplete(piece))
    score -= min(30, incomplete * 5)
    doubled = sum(1 for i in range(len(words) - 1) if words[i].lower() == words[i + 1].lower())
    score -= min(20, doubled * 3)
    if text.count("[") != text.count("]"):
        score -= 10
    return _clamp(score)


def heuristic_quality(
    text: str,
    citation_count: int | None = None,
    weights: HeuristicWeights | None = None,
    expected_aspects: int = 3,
) -> HeuristicQuality:
    """All five components and the weighted overall score of one answer.

    Args:
        text: the answer to score (its first :data:`TEXT_LIMIT` characters).
        citation_count: how many citations the answer carries; ``None`` counts those found in
            the text by :func:`detect_citations`.
        weights: component weights (default: the seed's .25/.20/.20/.20/.15).
        expected_aspects: passed to :func:`answer_completeness`.
    """
    w = weights or HeuristicWeights()
    capped_at = TEXT_LIMIT if len(text) > TEXT_LIMIT else None
    text = text[:TEXT_LIMIT]
    n = len(detect_citations(text)) if citation_count is None else citation_count
    if n < 0:
        raise ValueError(f"citation_count must be non-negative, got {n}")
    parts = {
        "semantic_coherence": semantic_coherence(text, n),
        "citation_density": citation_density(text, n),
        "semantic_richness": semantic_richness(text),
        "answer_completeness": answer_completeness(text, expected_aspects),
        "error_freedom": error_freedom(text),
    }
    overall = _clamp(sum(parts[k] * getattr(w, k) for k in COMPONENTS))
    return HeuristicQuality(**parts, overall=overall, capped_at=capped_at)


def heuristic_quality_scores(
    text: str, weights: HeuristicWeights | None = None, expected_aspects: int = 3
) -> tuple[HeuristicQuality, ScoreSet]:
    """Score any final answer: the quality record and its named scores.

    Args:
        text: the final answer (citations are detected in it).
        weights: component weights (default: the seed's).
        expected_aspects: passed to :func:`answer_completeness`.

    Returns:
        The :class:`HeuristicQuality` and a :class:`~harness.records.scoreset.ScoreSet` with
        ``heuristic_quality`` (the overall, 0-100) and ``hq_<component>`` for each component.
    """
    q = heuristic_quality(text, weights=weights, expected_aspects=expected_aspects)
    scores = {"heuristic_quality": q.overall} | {SCORE_PREFIX + k: getattr(q, k) for k in COMPONENTS}
    return q, ScoreSet(scores=scores)
