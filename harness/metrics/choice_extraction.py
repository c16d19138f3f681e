"""Reading the option an answer chooses: :func:`extract_choice` (the rules and their precedence are
defined in :mod:`harness.metrics.extraction`'s docstring, "Choices")."""

from __future__ import annotations

import re
from collections.abc import Mapping

from harness.metrics.boolean_extraction import extract_boolean
from harness.metrics.choice_cues import (
    ALTERNATIVES,
    HEDGED,
    JOINED,
    MARK,
    boolean_options,
    distinctive,
    expression_pattern,
    is_expression,
    option_pattern,
    ordinal_key,
    pair_polarity,
    shield,
    shielded_keys,
    unshielded,
)
from harness.metrics.declared import declared_line
from harness.metrics.extraction_base import (
    CONCLUSION,
    CORRECTION,
    MARKUP,
    Extraction,
    answer_cues,
    as_declared,
    bold_spans,
    cap_text,
    clean_latex,
    declared_clause,
    drop_negated,
    extracted,
    last_boxed,
    marked_item,
    normalize_answer,
    quoted,
    split_sentences,
    truncated,
)
from harness.metrics.number_cues import TAKE_BACK
from harness.metrics.numbers import word_numbers
from harness.metrics.text_cues import (
    CONCEDED,
    OUTRANKED,
    RANKED_BELOW,
    SPEAKER_ROLES,
    ranks_context,
    unframed,
)

_NEGATION = re.compile(
    r"(?i)\b(?:not|no|never|neither|nor|wrong|incorrect|false|unlike|eliminat\w*|rul(?:e|ed|ing)\s+out|"
    r"excluded?|discard\w*|rather\s+than|instead\s+of|except|cannot|can't|isn't|aren't|wasn't|doesn't|"
    r"don't|didn't|won't|wouldn't|couldn't|tempting|distractor|trap)\b|n't\b"
)
#: A negated sub-clause that rejects the option it names (it opens with the negation, or says the
#: option is wrong or ruled out), not one that negates a property ("Glass does not carry current").
_REJECTS = re.compile(
    r"(?i)^[\W_]*(?:not|never|nor|no)\b|\b(?:wrong|incorrect|eliminat\w*|rul(?:e|ed|ing)\s+out|excluded?|discard\w*)\b"
)
_NOT_OPTION = r"(?i)\b(?:not|never|nor)\s+(?:(?:option|choice|answer)\s+)?\(?\s*(?:" + MARK
_SUBCLAUSE = re.compile(r"[,;:()\[\]—–]|\s-\s|\b(?:but|while|whereas|although|though)\b", re.IGNORECASE)


def _letter_pattern(keys: list[str]) -> str:
    return "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))


def _key_for(letter: str, options: Mapping[str, str], strict_case: bool) -> str | None:
    if letter in options:
        return letter
    if not strict_case:
        for key in options:
            if key.lower() == letter.lower():
                return key
    return None


_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_PLAIN_NUMBER_IN = re.compile(r"(?<![\w.,/-])-?\d+(?:\.\d+)?(?![\w,/]|\.\d)")


#: A speaker's label opening a line ("Model A:", "Member 2 —", "Chairman B:").
_SPEAKER_LABEL = re.compile(r"(?im)^([ \t>*_]*)" + SPEAKER_ROLES + r"\s+[A-Z0-9]{1,3}\s*[:—–]\s*")
#: A speaker named by a letter inside a sentence ("Response A picked B", "Responses B and C picked
#: C", "Member D's"): the letter names the speaker, not an option. Narrower than
#: :data:`~harness.metrics.text_cues.SPEAKER_ROLES` on purpose: inside a sentence, "chair B" or "AI A"
#: may be an option's own text.
_SPEAKER_NAMED = re.compile(
    r"\b((?:response|model|member|juror|panelist|agent|expert|reviewer)s?\s+)([A-Z](?:\s*(?:,|and|&)\s*[A-Z])*)\b",
    re.IGNORECASE,
)
_ODD_ONE = re.compile(
    r"\b(?:NOT|EXCEPT)\b|(?i:\bodd\s+one\s+out\b|\bdoes\s+not\s+belong\b|\bdoesn't\s+belong\b|\bis\s+not\s+(?:a|an)\b)"
)


def _spelled_values(clause: str) -> set[float]:
    """The values of the spelled-out numbers in ``clause`` ("forty-five" → 45), a year read as two
    numbers taken together too ("Nineteen forty-five" → 1945); only values of ten or more name an
    option ("two of three jurors" is a count in passing, not options 2 and 3)."""
    runs: dict[int, list[float]] = {}
    for at, n in word_numbers(clause):
        runs.setdefault(at, []).append(n.value)
    out = {v for vs in runs.values() for v in vs}
    for vs in runs.values():
        if len(vs) == 2 and 10 <= vs[0] <= 99 and 0 <= vs[1] <= 99 and vs[0] == int(vs[0]) and vs[1] == int(vs[1]):
            out.add(vs[0] * 100 + vs[1])
    return out


class _Options:
    """Option keys and texts, with the regular expressions that find their mentions."""

    def __init__(self, options: Mapping[str, str], letters: bool, query: str | None = None) -> None:
        self.options = dict(options)
        self.letters = letters
        #: Options placed below another ("China is a distant second", "ahead of China") are context.
        self.ranked = ranks_context(query)
        self.asked = set(re.findall(r"[a-z]+", (query or "").split("\n")[0].lower()))
        #: A question asking for the one option that is not ("Which is NOT …", "all EXCEPT", "the odd one
        #: out"): the answer's explanation names the other options as the group that is.
        self.odd_one = bool(query and _ODD_ONE.search(query))
        keys = _letter_pattern(list(options)) if letters else ""
        self.marker = (
            re.compile(
                r"\b(?:option|choice|answer)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])|\((?P<p>" + keys + r")\)"
                r"|(?<![\w(])(?P<c>" + keys + r")\)|(?<![\w'’-])(?P<u>" + keys + r")(?![\w'’-])"
            )
            if letters
            else None
        )
        self.keys_ci = (
            re.compile(
                r"\b(?:option|choice)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])|\((?P<p>" + keys + r")\)", re.IGNORECASE
            )
            if letters
            else None
        )
        keys_ci = {k.casefold() for k in options} if letters else set()
        self.texts = sorted(
            (
                (k, normalize_answer(t))
                for k, t in options.items()
                if normalize_answer(t)
                and (not letters or (len(normalize_answer(t)) > 1 and normalize_answer(t) not in keys_ci))
            ),
            key=lambda kt: len(kt[1]),
            reverse=True,
        )
        #: When an option is an expression ("x cos x + sin x"), every option is found as a whole
        #: expression, operators included (:func:`harness.metrics.choice_cues.expression_pattern`), never
        #: by its words alone.
        math = any(is_expression(t) for t in options.values())
        self.patterns = [
            (k, expression_pattern(t) if math else p)
            for k, t in sorted(options.items(), key=lambda kt: len(kt[1]), reverse=True)
            if any(k == kk for kk, _ in self.texts) and (p := option_pattern(t)) is not None
        ]
        self.expressions = dict(self.patterns) if math else {}
        #: Options that are all plain numbers are also named by an equal value in another notation
        #: ("0.450" names "0.45", "1,945"… not: only digits with an optional decimal part).
        self.values: dict[float, str] = (
            {float(t.strip()): k for k, t in options.items()}
            if options and all(_PLAIN_NUMBER.fullmatch(t.strip()) for t in options.values())
            else {}
        )
        #: "not C", "not option (C)", "not <C's text>": a sub-clause that rejects the option it names.
        self.not_option = re.compile(_NOT_OPTION + (r"|(?-i:" + keys + r")(?![\w'’])" if letters else "") + ")")
        self.shield_markers = (
            [
                re.compile(r"(?i)\((?P<k>" + keys + r")\)"),
                re.compile(r"(?i)\b(?:option|choice)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])"),
                re.compile(r"(?<![\w(])(?P<k>" + keys + r")\)"),
            ]
            if letters
            else []
        )

    def mentions(self, clause: str) -> set[str]:
        found: set[str] = set()
        if self.letters and self.marker is not None and self.keys_ci is not None:
            for m in self.keys_ci.finditer(clause):
                key = _key_for(m["k"] or m["p"], self.options, strict_case=False)
                if key:
                    found.add(key)
            for m in self.marker.finditer(clause):
                letter = m["k"] or m["p"] or m["c"] or m["u"]
                if m["u"] and (letter in ("A", "I") or len(letter) > 1 or not letter.isupper()):
                    # a bare "A"/"I" is usually the article or the pronoun
                    if not (
                        letter == "A"
                        and re.match(
                            r"\s*(?:is|was|would|seems|or|and|could|might|may|can|also|[).,:;!]|$)", clause[m.end() :]
                        )
                    ):
                        continue
                key = _key_for(letter, self.options, strict_case=True)
                if key:
                    found.add(key)
        found |= {k for k, p in self.expressions.items() if p.search(clause)}
        if self.values:
            found |= {
                self.values[float(m.group(0))]
                for m in _PLAIN_NUMBER_IN.finditer(clause)
                if float(m.group(0)) in self.values
            }
            found |= {self.values[v] for v in _spelled_values(clause) if v in self.values and abs(v) >= 10}
        norm = " " + normalize_answer(clause) + " "
        for key, text in self.texts:
            if key in self.expressions:
                continue
            token = " " + text + " "
            if token in norm:
                found.add(key)
                norm = norm.replace(token, " ")
        return found

    def shielded(self, sentence: str) -> str:
        """``sentence`` with option texts and letter markers as placeholders (:func:`choice_cues.shield`)."""
        out = shield(sentence, self.patterns, None, {})
        for marker in self.shield_markers:
            out = shield(out, [], marker, {k: k for k in self.options})
        return out

    def offered(self, clause: str, joined: bool = False) -> list[str]:
        """Two different options offered as alternatives ("A or D", "12/24 or 12/25", "(b) or maybe
        (c)"), else an empty list (:data:`harness.metrics.choice_cues.ALTERNATIVES`)."""
        out = self.shielded(clause)
        if self.letters:
            upper = [k for k in self.options if len(k) == 1 and k.isupper()]
            if upper:
                bare = re.compile(r"(?<![\w'’\x00-])(?P<k>" + _letter_pattern(upper) + r")(?![\w'’\x00-])")
                out = shield(out, [], bare, {k: k for k in upper})
        compared = self.ranked_below(out)  # "more northerly than Madrid or Cairo": compared, not offered
        for pattern in (ALTERNATIVES, JOINED) if joined else (ALTERNATIVES,):
            for m in pattern.finditer(out):
                if m["a"] != m["b"] and m["a"] in self.options and m["b"] in self.options:
                    if {m["a"], m["b"]} & compared:
                        continue
                    return [m["a"], m["b"]]
        return []

    def positive_mentions(self, sentence: str) -> set[str]:
        """Options named in sub-clauses without a negation, less those the same sentence rejects in a
        sub-clause (:data:`_REJECTS`, "not C": "Not C, since C forgets the sin x term" names none) and
        those only in a clause framed as what others pick ("People usually pick B"); an
        option's own words (its text, its marker) are shielded first, so parentheses inside them do
        not split and their own "not" does not negate them."""
        found: set[str] = set()
        rejected: set[str] = set()
        sentence = unframed(sentence)  # "People usually pick B": what others pick is not named here
        # "far north of Rome (42° N), Madrid (40° N) and Cairo": a compared list runs across asides
        compared = self.ranked_below(_ASIDE.sub(" ", self.shielded(sentence)))
        for part in _SUBCLAUSE.split(self.shielded(sentence)):
            rest = unshielded(part)
            if not part.strip():
                continue
            named = {k for k in shielded_keys(part) if k in self.options} | self.mentions(rest)
            named -= self.ranked_below(part)
            if _NEGATION.search(rest):
                if _REJECTS.search(rest) or self.not_option.search(part):
                    rejected |= named
            else:
                found |= named
        return found - rejected - compared  # "Not C, since C forgets a term": the reason is about the rejected C

    def ranked_below(self, part: str) -> set[str]:
        """The options a shielded sub-clause places below another ("… is a distant third", "ahead of
        …", "it overtook …", and those listed right after one: "followed by B and then C"; see
        :data:`~harness.metrics.text_cues.RANKED_BELOW` and :data:`~harness.metrics.text_cues.OUTRANKED`):
        context, not a choice; none when the question asks for a rank."""
        if not self.ranked:
            return set()
        ranked: dict[str, int] = {}
        seen: dict[str, int] = {}
        # "Oxygen (A) is second": an option's text and its marker together are one mention
        part = re.sub(
            MARK + r"([^" + MARK + r"]+)" + MARK + r"[\s()]*" + MARK + r"\1" + MARK, MARK + r"\1" + MARK, part
        )
        after = -1  # the end of the last ranked option: "followed by B and then C" ranks both
        for m in re.finditer(MARK + r"([^" + MARK + r"]+)" + MARK, part):
            seen[m[1]] = seen.get(m[1], 0) + 1
            listed = after >= 0 and re.fullmatch(
                r"\s*,?\s*(?:(?:and|or|nor)\s+)?(?:then\s+)?(?:the\s+)?", part[after : m.start()]
            )
            outranked = OUTRANKED.search(part[: m.start()])
            scale = outranked and (outranked["cmp"] or outranked["dir"])
            if outranked and scale and not self.compares_as_asked(scale):
                outranked = None  # "shorter than the Amazon" for "the longest": not the question's scale
            if RANKED_BELOW.match(part, m.end()) or outranked or listed:
                ranked[m[1]] = ranked.get(m[1], 0) + 1
                after = m.end()
        return {k for k, n in ranked.items() if n == seen[k]}  # every mention of it is ranked below

    def compares_as_asked(self, comparative: str) -> bool:
        """Whether a comparison ("longer", "further north", "closer to the Sun") runs on the question's
        own scale: one of its words shares a stem of four letters or more with a word of the question
        ("longer" / "longest", "north" / "north")."""
        for word in comparative.lower().split():
            if word in ("more", "less", "and", "or", "the", "to", "of", "than"):
                continue
            stem = re.sub(r"(?:ier|er|r)$", "", word) if len(word) > 4 else word
            if len(stem) >= 3 and any(w.startswith(stem[:4]) for w in self.asked):
                return True
        return False


def _lead_letter(clause: str, opts: _Options) -> str | None:
    if not opts.letters:
        return None
    keys = _letter_pattern(list(opts.options))
    lead = re.match(
        r"^\W*(?:(?i:option|choice)\s+)?(?P<open>\()?(?P<k>" + keys + r"|[A-Za-z])(?P<close>\))?"
        r"(?![\w'])",
        clause,
        re.IGNORECASE,
    )
    if not lead:
        return None
    alone = clause.strip(MARKUP + ".!?:)(") == lead["k"]
    marked = bool(lead["open"] or lead["close"]) or alone or bool(re.match(r"^\W*(?i:option|choice)", clause))
    return _key_for(lead["k"], opts.options, strict_case=not marked)


def _choice_in_clause(clause: str, opts: _Options) -> tuple[str | None, str] | None:
    clause = drop_negated(clause)
    offered = opts.offered(clause, joined=True)
    if offered:
        return None, f"the clause gives options {offered} together or as alternatives"
    key = _lead_letter(clause, opts)
    if key is not None:
        named = {k for k, p in opts.patterns if p.search(clause)}
        if named and key not in named:
            return None, f"the letter {key!r} leads the clause but it names option {sorted(named)[0]!r}'s text"
        return key, "the letter leading the clause"
    found = opts.positive_mentions(clause)
    if len(found) == 1:
        key = found.pop()
        return key, f"the clause names option {key!r}"
    if len(found) > 1:
        return None, f"the clause names several options {sorted(found)}"
    key = ordinal_key(clause, list(opts.options))
    if key is not None:
        return key, f"the clause points at option {key!r} by its position"
    if not _NEGATION.search(clause):
        key = distinctive(clause, opts.options)
        if key is not None:
            return key, f"the clause's words pick out option {key!r} alone"
    return None


_MARKED_LEAD = r"^[\s*_>#-]*(?:\((?P<a>{keys})\)|(?P<b>{keys})\)|(?P<c>{keys})[.:](?=\s))"
_WALK_LINE = r"(?m)^[ \t*_>#-]*(?:\(?(?:{keys})\)|(?:{keys})[.:](?=\s))"


_CONCESSION = re.compile(r"(?i)\b(?:though|although|even\s+though|whereas|while)\b[^;()]*")


def _beside(line: str, key: str | None, opts: _Options) -> str:
    """Why a declared line that chooses ``key`` does not commit to it ("" when it does): its first
    sentence names another option outside a negation or a concession ("B (or A)", "B (A on average)", "B; A by
    average distance", "B — unless …, then A"), or it asks ("B?")."""
    if key is None:
        return ""
    line = re.split(r"[.!](?=\s)", line, maxsplit=1)[
        0
    ]  # "C. Canberra was built between Sydney and …": its first sentence
    if line.rstrip(" *_.").endswith("?"):
        return "gives the option as a question"
    others = opts.positive_mentions(_CONCESSION.sub(" ", line)) - {key}
    if others:
        return f"also names {sorted(others)}"
    return ""


def _leading_marker(text: str, opts: _Options) -> str | None:
    """The option whose marker opens the answer ("(c) Can't be determined — …", "B) London"), when the
    answer is not a walk-through of several options and the opening line does not negate it."""
    if not opts.letters:
        return None
    keys = _letter_pattern(list(opts.options))
    first = next((ln for ln in text.split("\n") if ln.strip(MARKUP)), "")
    m = re.match(_MARKED_LEAD.format(keys=keys), first, re.IGNORECASE)
    if not m or len(re.findall(_WALK_LINE.format(keys=keys), text, re.IGNORECASE)) > 1:
        return None
    key = _key_for(m["a"] or m["b"] or m["c"], opts.options, strict_case=bool(m["c"]))
    if key is None:
        return None
    rest = first[m.end() :]
    others = set()
    for marker in opts.shield_markers:
        others |= {_key_for(x["k"], opts.options, strict_case=False) for x in marker.finditer(rest)}
    if others - {key} or re.search(r"(?i)\b(?:or|either|maybe|possibly|perhaps)\b", rest):
        return None
    pattern = dict(opts.patterns).get(key)
    if pattern is not None and pattern.match(rest.strip(" \t*_:—–-")):
        return key
    if not _NEGATION.search(rest) and opts.positive_mentions(rest) <= {key}:
        return key
    return None


_HEAD_TEXT_END = re.compile(r"\s*(?:[—–:]|\s-\s|\.(?=\s))")
_TURNS = re.compile(r"(?i)\b(?:but|however|although|though|or|either|maybe|possibly|perhaps|probably|unless)\b")


def _leading_text(text: str, opts: _Options) -> str | None:
    """The option whose text opens the answer as a heading, before a dash, colon or full stop, with
    the explanation after it ("Mercury — it orbits well inside Venus's orbit."), when nothing in the
    answer turns, hedges, negates right after it or takes back, and no later sentence names another
    option without it."""
    first = next((ln for ln in text.split("\n") if ln.strip(MARKUP)), "").lstrip(MARKUP)
    for key, pattern in opts.patterns:
        m = pattern.match(first)
        if m is None or not _HEAD_TEXT_END.match(first, m.end()):
            continue
        rest = text[text.find(first) + m.end() :]
        opening = rest.lstrip(" \t*_:—–-.")
        if _TURNS.search(rest) or TAKE_BACK.search(rest) or CORRECTION.search(rest) or _NEGATION.match(opening):
            return None
        for i, sentence in enumerate(split_sentences(opening)):
            cue = CONCLUSION.search(sentence)
            if cue and opts.positive_mentions(sentence[cue.end() :]) - {key}:
                return None
            named = opts.positive_mentions(sentence)
            if i > 0 and named - {key} and key not in named:  # "Venus: it's second. Mercury is closest."
                return None
        return key
    return None


def _walk_through(text: str, opts: _Options) -> bool:
    """The answer goes through two or more options line by line ("A) …", "B) …")."""
    if not opts.letters:
        return False
    keys = _letter_pattern(list(opts.options))
    return len(re.findall(_WALK_LINE.format(keys=keys), text, re.IGNORECASE)) > 1


def _choice_taken_back(text: str, clause: str, opts: _Options, found: Extraction, capped: bool) -> Extraction:
    """``found``, unless the text after ``clause`` takes it back ("…. Wait, it is (C)"; see
    :func:`_corrected_later`)."""
    at = text.rfind(clause)
    if found.value is None or at < 0:
        return found
    tail = text[at + len(clause) :]
    fix = TAKE_BACK.search(tail)
    if fix is None:
        return found
    named = [m for sentence in split_sentences(tail[fix.end() :]) if (m := opts.positive_mentions(sentence))]
    other = named[-1] - {found.value} if named else set()
    if not other:  # nothing named after it, or the last naming sentence confirms the answer
        return found
    return extracted(
        None,
        "ambiguous",
        f"{found.value!r} is taken back later: {quoted(tail[fix.start() :])} names {sorted(other)}",
        capped,
    )


def _choice_result(got: tuple[str | None, str], method: str, why: str, capped: bool) -> Extraction:
    key, how = got
    if key is None:
        return extracted(None, "ambiguous", f"{how} ({why})", capped)
    return extracted(key, method, f"{key!r} {why} ({how})", capped)


def extract_choice(text: str, options: Mapping[str, str], letters: bool = True, query: str | None = None) -> Extraction:
    """The option chosen in ``text`` (a key of ``options``; see the module docstring).

    Args:
        text: the answer.
        options: key -> option text: the case's letters, or each option's text mapped to itself.
        letters: the keys are letters the answer may use (``False`` for options given as a list).
        query: the question, when known (for options that are a truth-value pair).
    """
    text, capped = cap_text(text)
    text = _SPEAKER_LABEL.sub(r"\1", clean_latex(text))  # "Model A: …" names the speaker, not option A
    if letters:  # "Response A picked B": the speaker's letter is masked
        text = _SPEAKER_NAMED.sub(lambda m: m[1] + re.sub(r"\b[A-Za-z]\b", "#", m[2]), text)
    opts = _Options(options, letters, query)
    line = declared_clause(text)
    if line is not None:
        whole = [
            k
            for k, t in options.items()
            if normalize_answer(t)
            and normalize_answer(t) == normalize_answer(line)
            and not (letters and re.match(r"^\W*\(?[A-Za-z]\)", line))
        ]
        if len(whole) == 1:
            return as_declared(extracted(whole[0], "declared", f"the text of option {whole[0]!r}", capped))
        got = _choice_in_clause(line, opts)
        if got:
            full = declared_line(text)
            beside = _beside(full.value if full is not None else line, got[0], opts)
            if beside:
                return as_declared(extracted(None, "ambiguous", f"the declared line {quoted(line)} {beside}", capped))
            return _choice_taken_back(
                text, line, opts, as_declared(_choice_result(got, "declared", quoted(line), capped)), capped
            )
    boxed = last_boxed(text)
    if boxed:
        got = _choice_in_clause(boxed, opts)
        if got:
            return _choice_result(got, "boxed", "inside \\boxed{...}", capped)
    cues = answer_cues(text)
    for cue, clause in reversed(cues):
        got = _choice_in_clause(clause, opts)
        if got:
            return _choice_taken_back(
                text,
                clause,
                opts,
                _choice_result(got, "answer_cue", f"after the cue {cue!r}: {quoted(clause)}", capped),
                capped,
            )
    bare = text.strip(MARKUP + ".!?:()[] \n")
    if letters and len(bare) <= 2:
        key = _key_for(bare, options, strict_case=False)
        if key is not None:
            return extracted(key, "bare_letter", f"the whole answer is the letter {key!r}", capped)
    whole = [
        k
        for k, t in options.items()
        if normalize_answer(t)
        and normalize_answer(t) == normalize_answer(bare)
        and not (letters and re.match(r"^\W*\(?[A-Za-z][.):]\s", bare))
    ]  # "A. Nitrogen": the letter A
    if len(whole) == 1:
        return extracted(whole[0], "whole", f"the whole answer is the text of option {whole[0]!r}", capped)
    for inner in reversed(bold_spans(text)):
        got = _choice_in_clause(inner, opts)
        if got and got[0] is not None:
            return _choice_result(got, "bold", f"in the last bold span naming an option **{inner}**", capped)
    item = marked_item(text)
    got = _choice_in_clause(item, opts) if item is not None else None
    if got and got[0] is not None:
        return _choice_result(
            got, "marked", f"in the one list or table item marked as picked ({quoted(item or '')})", capped
        )
    pair = boolean_options(options)
    if pair is not None:
        words = {v: normalize_answer(options[k]) for v, k in pair.items()}
        if not set(words.values()) & {"true", "false", "yes", "no", "correct", "incorrect"}:
            polar = pair_polarity(text, words)
            if polar is not None:
                value, where = polar
                if value is None:
                    return extracted(
                        None, "ambiguous", f"the sentence {quoted(where)} uses both options' words", capped
                    )
                return extracted(
                    pair[value], "last_mention", f"{pair[value]!r}: {quoted(where)} says {words[value]!r}", capped
                )
        said = extract_boolean(text, query)
        if said.value is None:
            return extracted(None, said.method, f"the options are a truth-value pair; {said.detail}", capped)
        key = pair[said.value == "true"]
        return extracted(
            key,
            said.method,
            f"{key!r}: the options are a truth-value pair and the answer says {said.value} ({said.detail})",
            capped,
        )
    key = _leading_marker(text, opts)
    if key is not None:
        return extracted(key, "leading", f"{key!r}: the answer opens with its marker", capped)
    key = _leading_text(text, opts)
    if key is not None:
        return extracted(key, "leading", f"{key!r}: the answer opens with its text, then explains", capped)
    sentences = split_sentences(text)
    key = ordinal_key(sentences[0], list(options)) if sentences else None
    if key is not None:
        return extracted(
            key, "leading", f"{key!r}: the answer opens by pointing at it by position ({quoted(sentences[0])})", capped
        )
    return _choice_by_mentions(text, opts, capped)


_TURN = re.compile(
    r"(?i)\b(?:but|however|whereas|therefore|thus|hence|so|which\s+leaves|leaving|that\s+leaves|"
    r"leaves|only)\b"
)


#: A leading condition or premise ("If tomorrow is 10/03, today is 10/02."): what it names is assumed,
#: not answered.
_PREMISE = re.compile(
    r"(?i)^\W*(?:if|assuming(?:\s+that)?|suppose|supposing|given\s+that|since|because)\b[^,;:]{1,160}?,\s*(?:then\s+)?"
)


_ASIDE = re.compile(r"\([^()]{1,200}\)")
#: Words that make an aside offer or add an option rather than only remark on the others.
_ASIDE_OFFERS = re.compile(
    r"(?i)\b(?:or|and|either|also|too|equally|alternatively|otherwise|unless|but|though|although|"
    r"could|might|may|maybe|perhaps|possibly|probably|arguably|if)\b"
)


def _outside_asides(sentence: str, opts: _Options) -> str | None:
    """The one option ``sentence`` names outside its parenthetical asides, when the asides name
    others only as remarks ("2^10 = 1024 is the largest (10^3 = 1000, 3^6 = 729)"): an aside that
    offers or adds an option ("(or B)", "(B also works)", "(maybe B)") or negates one leaves it open."""
    asides = _ASIDE.findall(opts.shielded(sentence))
    if not asides or any(_ASIDE_OFFERS.search(unshielded(a)) or _NEGATION.search(unshielded(a)) for a in asides):
        return None
    outside = opts.positive_mentions(_ASIDE.sub(" ", opts.shielded(sentence)).replace(MARK, " "))
    return next(iter(outside)) if len(outside) == 1 else None


#: A sentence wholly inside parentheses: a remark beside the answer, not a claim.
_WHOLE_ASIDE = re.compile(r"^[\s*_]*\((?=(?:[^()]*?\s){3})(?:[^()]|\([^()]*\))*\)?[\s.!?*_]*$")


#: A question word a later sentence uses only as what its option is compared away from ("The nucleus is
#: more like the control centre than the powerhouse").
_COMPARED_AWAY = re.compile(r"(?i)\b(?:than|unlike)\s+(?:the\s+|a\s+|an\s+)?[\w-]+")
_QUESTION_FILLER = frozenset(
    "the and which what who whom whose this that these those with from for are was were has have had does did its "
    "not can could would should will following options option one ones".split()
)
#: A competing claim in other words ("Mercury orbits nearest", "… is innermost", "the best").
_SUPERLATIVE = re.compile(r"(?i)\b(?:[a-z]{2,}est|[a-z]*most|least|best|worst|first|only)\b")


def _states_the_asked(first: str, later: list[tuple[int, str, set[str]]], text: str, opts: _Options) -> bool:
    """Question anchoring for choices: the first sentence, naming one option, is a bare answer (at
    most three words: "A.") or states a predicate word of the question ("Mercury is closest"), and
    every later sentence naming an option says more than a bare name, uses none of them, and nothing
    after it turns, negates, hedges or takes back ("Venus is much hotter"; "Venus (B) at 0.72 AU")."""
    asked = {w for w in opts.asked if len(w) >= 3} - _QUESTION_FILLER
    words = set(re.findall(r"[a-z]+", first.lower()))
    bare = len(re.findall(r"\w+", first)) <= 3  # "A.", "CO₂ — carbon dioxide."
    if not (bare or words & asked) or first.rstrip(" *_").endswith("?") or _NEGATION.search(first):
        return False
    rest = text[text.find(first) + len(first) :]
    if (
        TAKE_BACK.search(rest)
        or CORRECTION.search(rest)
        or re.search(r"(?i)\b(?:but|however|actually|instead|rather|no|not|wrong|incorrect)\b|n't\b", rest)
        or HEDGED.search(rest)
    ):
        return False
    return all(
        len(s.split()) > 3
        and not (set(re.findall(r"[a-z]+", _COMPARED_AWAY.sub(" ", s).lower())) & asked)
        and not _SUPERLATIVE.search(s)
        for _, s, _ in later
    )


def _odd_one_out(sentences: list[str], mentioned: list[tuple[int, str, set[str]]], opts: _Options) -> str | None:
    """For a question asking for the option that is not ("Which is NOT …"): the one option the
    answer's opening (its first sentence, or the part of it before a dash or colon) names, when
    everything after names the other options only as a group, two or more together, and neither
    turns nor takes back ("C — yellow is what you get by mixing red and green"; "The odd one out is
    Yellow (option C); red, green and blue are the primaries"); else ``None``."""
    if not opts.odd_one or not mentioned or mentioned[0][0] != 0 or _NEGATION.search(sentences[0]):
        return None
    parts = re.split(r"\s[—–-]\s|:\s", sentences[0], maxsplit=1)
    head, tail = parts[0], (parts[1] if len(parts) > 1 else "")
    head_keys = opts.positive_mentions(head)
    if len(head_keys) != 1:
        return None
    key = next(iter(head_keys))
    rest = [opts.positive_mentions(tail)] if tail else []
    rest += [keys for _, _, keys in mentioned[1:]]
    rest = [k for k in rest if k]
    after = " ".join([tail] + [s for _, s, _ in mentioned[1:]])
    if TAKE_BACK.search(after) or CORRECTION.search(after) or _TURNS.search(after):
        return None
    if rest and all(len(k - {key}) > 1 for k in rest):  # the others named as a group, never one alone
        return key
    return None


def _choice_by_mentions(text: str, opts: _Options, capped: bool) -> Extraction:
    if truncated(text):
        return extracted(None, "none", "the answer stops mid-sentence (truncated?) and gives no answer cue", capped)
    sentences = split_sentences(text)
    mentioned = [(i, s, m) for i, s in enumerate(sentences) if (m := opts.positive_mentions(s))]
    stated = [x for x in mentioned if not _WHOLE_ASIDE.match(x[1])]
    if stated and len(stated) < len(mentioned):
        mentioned = stated  # "(−cos x, option B, is the antiderivative …)": a sentence in parentheses is an aside
    if not mentioned:
        return extracted(None, "none", "no option letter or option text found in the answer", capped)
    i_last, last, last_keys = mentioned[-1]
    if _walk_through(text, opts) and not CONCLUSION.search(last):
        return extracted(
            None, "none", "the answer walks through the options line by line and never commits to one", capped
        )
    _, first, first_keys = mentioned[0]
    cue = CONCLUSION.search(last)
    lead_ok = mentioned[0][0] == 0 and len(first_keys) == 1 and not _NEGATION.search(first)
    odd = _odd_one_out(sentences, mentioned, opts)
    if odd is not None:
        return extracted(
            odd,
            "leading",
            f"{odd!r}: the answer opens by naming only it ({quoted(first)}) and afterwards names only the other "
            "options, the group the question sets it apart from",
            capped,
        )
    opened = i_last > 0 and HEDGED.search(first) is not None and bool(opts.offered(first))
    if len(last_keys) == 1 and opened and CONCEDED.search(last) and not cue:
        return extracted(
            None,
            "ambiguous",
            f"the answer opens between options ({quoted(first)}) and its last naming sentence concedes another "
            f"({quoted(last)})",
            capped,
        )
    if len(last_keys) == 1:
        key = next(iter(last_keys))
        if cue or not lead_ok or first_keys == last_keys or len(mentioned) == 1:
            method = "conclusion" if cue else "last_mention"
            return extracted(
                key, method, f"{key!r}: the last sentence that names an option names only it ({quoted(last)})", capped
            )
        lead = next(iter(first_keys))
        if _states_the_asked(first, mentioned[1:], text, opts):
            return extracted(
                lead,
                "leading",
                f"{lead!r}: the first sentence answers what is asked ({quoted(first)}); the later ones name "
                "other options only with other predicates",
                capped,
            )
        return extracted(
            None,
            "ambiguous",
            f"the first sentence names {lead!r} and the last names {key!r}, without a conclusion cue",
            capped,
        )
    offered = opts.offered(last)
    if not offered and HEDGED.search(last):
        offered = sorted(last_keys)
    if offered:
        return extracted(
            None, "ambiguous", f"the last sentence naming options offers {offered} as alternatives", capped
        )
    aside_key = _outside_asides(last, opts)
    if aside_key is not None:
        return extracted(
            aside_key,
            "conclusion" if cue else "last_mention",
            f"{aside_key!r}: the only option the last sentence naming options names outside its asides "
            f"({quoted(last)})",
            capped,
        )
    premise = _PREMISE.match(last)
    if premise:
        after = opts.positive_mentions(last[premise.end() :])
        if len(after) == 1:
            key = next(iter(after))
            return extracted(
                key,
                "conclusion",
                f"{key!r}: the only option named after the premise {quoted(premise.group(0))} "
                f"in the last sentence naming options ({quoted(last)})",
                capped,
            )
    turn = list(_TURN.finditer(last))
    if turn and CONCEDED.search(last[turn[-1].end() :]) and not CONCLUSION.search(last[turn[-1].end() :]):
        before = opts.positive_mentions(last[: turn[-1].start()])
        if len(before) == 1 and not _NEGATION.search(last[: turn[-1].start()]) and not opened:
            key = next(iter(before))
            return extracted(
                key,
                "conclusion",
                f"{key!r}: the only option named before {turn[-1].group(0).strip()!r}, after which the last "
                f"sentence naming options only concedes another ({quoted(last)})",
                capped,
            )
        return extracted(
            None,
            "ambiguous",
            f"the last sentence naming options concedes another after a turn ({quoted(last)})",
            capped,
        )
    if turn:
        after = opts.positive_mentions(last[turn[-1].end() :])
        if len(after) == 1:
            key = next(iter(after))
            return extracted(
                key,
                "conclusion",
                f"{key!r}: the only option named after {turn[-1].group(0).strip()!r} "
                f"in the last sentence naming options ({quoted(last)})",
                capped,
            )
    if lead_ok and not cue:
        key = next(iter(first_keys))
        return extracted(
            key,
            "leading",
            f"{key!r}: the first sentence names only it ({quoted(first)}); the last "
            f"sentence naming options names several {sorted(last_keys)}",
            capped,
        )
    return extracted(
        None,
        "ambiguous",
        f"the last sentence naming options names several {sorted(last_keys)} ({quoted(last)})",
        capped,
    )
