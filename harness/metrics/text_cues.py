"""Rule tables for short answers (``exact``, ``any_of``; used by :mod:`harness.metrics.correctness`).

An extracted short answer is narrowed before it is compared, in this order:

1. **asides** — parentheses whose text is not part of any expected value are dropped when
   something remains ("Raphael (a pupil of Leonardo)" is read as "Raphael"), except a parenthesis
   that offers an alternative ("Nitrogen (or oxygen, depending on altitude)", "(maybe Lyon)",
   "(possibly Venus)") makes the answer ``ambiguous``.
2. **contrast and correction** — the candidate is cut at its last contrast word (:data:`CONTRAST`).
   After a correcting word ("but", "however", "yet", "actually", "in fact", "rather", "instead")
   the claim is the part after it; after a conceding word ("although", "though", "whereas",
   "while") the part before it. When the expected value is named in the claim, the claim is what
   is compared; when it is named only in the other part (the value is named and then corrected —
   "Most people say Lyon, but it is Marseille" — or only conceded — "Venus, although Mercury is
   closer"), the answer is ``ambiguous``, never correct. A correcting word whose clause only
   concedes a possibility (:data:`CONCEDED`: "I'd lean toward Lyon, but Paris is possible too",
   "…, but Paris can't be ruled out") is read as conceding: the claim is the part before it.
   A claim that names the expected value is not enough when the other part offers another
   candidate as a possibility ("Probably Paris, though it might be Lyon": :data:`OTHER_POSSIBILITY`,
   a "might / could / may be" or "possibly / perhaps / maybe" before a name or number): ``ambiguous``.
3. **coordinated clauses** — for answers read without a cue (the first sentence or the whole
   answer), a value named only in a second clause joined by "and" after a first clause of three or
   more words that names something else ("They take in oxygen and give off carbon dioxide"), or
   only in a trailing phrase after the comma of a copular main clause ("Saturn is the largest
   planet, with Jupiter second"), is ``ambiguous`` — unless that phrase is an appositive
   restating the clause's last noun phrase (:func:`appositive`): a place after "in / at / near /
   from <Place>" ("held in Rio de Janeiro, Brazil") or a symbol or formula after a lower-case noun
   ("sodium chloride, NaCl"); then the phrase is what is compared.
4. **attribution** — in a short answer (at most ``SHORT_ANSWER_WORDS`` words; a longer one is not
   matched as a phrase anyway), also the claim kept by rule 2, a value named only inside a clause
   framed as what others think or say (:data:`ATTRIBUTED`) does not commit the answerer:
   ``ambiguous``. A framing is a hedging adverb before a reporting verb (:data:`HEDGES` +
   :data:`REPORTING`: "usually credited to", "often thought to be", "traditionally ascribed",
   "has long been assumed"), a reported copula ("is said to be", "is believed that"), a reporting
   subject ("many say", "most sources give", "some historians credit", "people assume", "textbooks
   print", "most would answer", "everyone says"), "common
   belief", "the usual textbook answer", "according to legend", "tradition holds" or "supposedly /
   reportedly / allegedly".
   The framed clause runs from the clause boundary before the framing — so a subject is framed too
   ("Newton is widely regarded as its discoverer"), and the clause before it when the framed one
   only qualifies it ("Bell, who is often credited with it", "Pluto, the usual textbook answer") —
   to the next "," ";" ":" "(" or dash; a framing that ends its clause ("According to legend, …")
   frames the next clause too. A value named in a clause outside every framing commits ("Ottawa;
   it's often wrongly assumed to be Toronto", "Although many believe it's Sydney, it is Canberra").
   Plain attribution is a statement, not a report ("The telephone is credited to Bell", "It was
   written by Homer"), and so is a framing whose content words the question uses ("It's
   traditionally ascribed to Homer" for "To whom is the Odyssey traditionally ascribed?").
5. **commitment elsewhere** (:func:`harness.metrics.correctness.committed_elsewhere`) — a short
   answer that names the value is still ``ambiguous`` when it hedges the value ("Probably
   nitrogen", "It might be nitrogen", "I think it's Canberra"), when its closing conclusion turns
   to another name (:func:`last_conclusion`: "Canberra is the formal answer, though Sydney runs
   things, so Sydney"), when it offers alternatives with a slash ("Nitrogen / oxygen"), or — read without a
   cue — when a later sentence commits in the first person (:data:`COMMITS`: "I'd say", "I'll go
   with", "my answer is", "which is my answer") without naming the value ("Textbooks say Edison.
   I'd say Swan.").
"""

from __future__ import annotations

import re

CONTRAST = re.compile(
    r"(?i)(?:[,;:—–-]\s*|\s)(?:(?P<concede>although|though|even\s+though|whereas|while)|but|however|yet|actually|"
    r"in\s+fact|rather|instead|on\s+the\s+contrary|contrary\s+to)\b"
)
#: A clause that only concedes a possibility ("B is possible too", "B could also work", "B isn't
#: impossible", "B can't be ruled out"): what it names is allowed, not chosen.
CONCEDED = re.compile(
    r"(?i)\b(?:(?:is|are|'s|seems?|looks?)\s+(?:also\s+|still\s+)?(?:possible|plausible|conceivable|defensible|"
    r"not\s+impossible|an?\s+(?:possibility|option)|worth\s+considering)(?:\s+(?:too|as\s+well))?|"
    r"(?:could|might|may|can)\s+(?:also|still|well)\s+(?:work|apply|fit|be\s+(?:argued|defended|right|correct))|"
    r"(?:can(?:no|')t|could(?:n't|\s+not))\s+be\s+ruled\s+out|isn't\s+impossible)\b"
)
OTHER_POSSIBILITY = re.compile(
    r"\b(?:(?i:might|could|may)\s+(?:(?i:also|well|just)\s+)?(?i:be)|(?i:possibly|perhaps|maybe))\s+(?:(?i:the|a|an)\s+)?[A-Z0-9]"
)
#: Hedging adverbs that, before a reporting verb, make a statement a report of what others hold.
HEDGES = (
    r"often|commonly|widely|generally|popularly|frequently|sometimes|usually|mostly|largely|mistakenly|wrongly|"
    r"erroneously|falsely|traditionally|conventionally|typically|customarily|occasionally|historically"
)
#: Reporting verbs (past participles) that a hedge turns into a report ("usually credited to").
REPORTING = (
    r"thought|believed|assumed|said|claimed|supposed|reported|mistaken|confused|credited|attributed|ascribed|"
    r"given|cited|considered|regarded|listed|described|identified|quoted|associated|linked|taught|labelled|labeled"
)
ATTRIBUTED = re.compile(
    rf"(?i)\b(?:(?:{HEDGES})\s+(?:been\s+|being\s+)?(?:{REPORTING})\b|long\s+been\s+(?:{REPORTING})\b"
    r"|(?:is|are|was|were|'s|’s)\s+(?:said|thought|believed|rumou?red|claimed|reputed|supposed|assumed|alleged|"
    r"purported)\s+(?:to|that)\b"
    r"|(?:many|most|some|several|numerous)\s+(?:people\s+|folks\s+|sources\s+|accounts\s+|historians\s+|"
    r"textbooks\s+|references\s+|books\s+|websites\s+|sites\s+|scholars\s+|experts\s+|authors\s+|lists\s+)?"
    r"(?:would\s+|often\s+|still\s+|usually\s+)?(?:say|think|believe|assume|claim|guess|give|list|cite|credit|"
    r"attribute|report|state|suggest|mention|record|name|answer|show|print|quote)\b"
    r"|(?:people|everyone|everybody|others|textbooks?|sources|encyclopedias?|lists|quizzes|teachers|answer\s+keys?|"
    r"(?:conventional|folk|popular|received)\s+wisdom)\s+"
    r"(?:often\s+|usually\s+|commonly\s+|sometimes\s+|would\s+|will\s+)?"
    r"(?:say|says|said|think|thinks|believe|believes|assume|assumes|claim|claims|give|gives|answer|answers|list|lists|"
    r"show|shows|print|prints|quote|quotes|name|names|reply|replies|guess|guesses|pick|picks|holds?)\b"
    rf"|\b(?:{HEDGES})\s+(?:see|hear|read|find|encounter)\b"
    r"|(?:common|popular|widespread|conventional|traditional)\s+(?:belief|misconception|myth|assumption|view|"
    r"answer|attribution|account|story)\b|(?:usual|typical|classic|received|textbook)\s+(?:textbook\s+)?answer\b"
    r"|according\s+to\s+(?:legend|myth|popular|tradition|folklore|rumou?r|some|many|most)\b"
    r"|(?:legend|tradition|rumou?r)\s+(?:has\s+it|holds|says)\b|the\s+story\s+goes\b"
    r"|(?:supposedly|reportedly|allegedly|purportedly|rumou?redly)\b)"
)
#: A first-person commitment ("I'd say", "I'll go with", "my answer is", "which is my answer"), or
#: a council's chair's ("the chair picks", "the council goes with").
COMMITS = re.compile(
    r"(?i)\b(?:I(?:'d|’d|\s+would)\s+(?:say|go\s+with|pick|choose|name|answer|put)|I\s+(?:say|pick|choose|name)"
    r"|I(?:'?ll|’ll|\s+will)\s+(?:go\s+with|side\s+with|pick|choose)|I\s+side\s+with|my\s+(?:answer|pick|choice|vote|guess)\s+(?:is|would\s+be|:)|which\s+is\s+my\s+(?:answer|pick)"
    r"|the\s+(?:chair(?:man|woman|person)?|council|jury|panel|foreperson|moderator)\s+"
    r"(?:goes\s+with|sides\s+with|settles\s+on|picks|chooses))\b"
)
#: A value placed below the one asked for ("Saturn is second", "The United States is a distant
#: third", "…, with Montreal the runner-up"): what it names is context, not the answer. The rank word
#: follows the value (:data:`RANKED_BELOW`); or the value follows a comparison that puts another
#: above it (:data:`OUTRANKED`: "ahead of China", "followed by Lyon", "it overtook China", "larger
#: than Saturn", "far north of Rome"; a comparison with "than" counts only on the question's own scale:
#: "longer than" for "the longest", not "shorter than").
RANKED_BELOW = re.compile(
    r"(?i)\s*(?:(?:is|was|are|were|comes?|came|ranks?|ranked|sits?|finish(?:es|ed)?|places?|placed)\s+)?"
    r"(?:only\s+|just\s+)?(?:(?:a|the)\s+)?(?:(?:distant|close|clear|far|narrow)\s+)?"
    r"(?:second|third|fourth|fifth|runner[-\s]up|next)\b(?=[-\s]*(?:$|[.,;:!?)—–]|\w+est\b|most\b|least\b|"
    r"place\b|position\b|behind\b|after\b|in\b|with\b|at\b|on\b|by\b))"
)
OUTRANKED = re.compile(
    r"(?i)\b(?:(?:well\s+|just\s+|narrowly\s+|slightly\s+)?ahead\s+of|followed\s+by|trailed\s+by|"
    r"overt(?:ook|akes?|aken|aking)|surpass(?:es|ed|ing)?|outrank(?:s|ed|ing)?|outnumber(?:s|ed|ing)?|"
    r"edg(?:es|ed|ing)\s+out|(?:far\s+)?(?P<dir>north|south|east|west)\s+of|"
    r"(?P<cmp>[a-z]{2,}er(?:\s+[a-z]+){0,3}?|more\s+[a-z]+|less\s+[a-z]+)\s+than)\s+(?:the\s+)?$"
)
#: Ordinal words in a question: asked for a rank, a ranked value is the answer, not context.
_ASKS_RANK = re.compile(r"(?i)\b(?:second|third|fourth|fifth|runner[-\s]up|next)\b")


def ranked_sentence(sentence: str) -> bool:
    """Whether ``sentence`` only places a value of one to four words below another ("Saturn is
    second", "The United States is a distant third.")."""
    for n in range(4):
        m = re.match(r"\W*(?:[\w'’.-]+\s+){" + str(n) + r"}[\w'’.-]+", sentence)
        end = RANKED_BELOW.match(sentence, m.end()) if m else None
        if end is not None and not sentence[end.end() :].strip(" .!?;,*_"):
            return True
    return False


#: Words of a question that are not its predicate: wh-words, auxiliaries, generic verbs.
_NOT_ASKED = frozenset(
    "what which whom whose where when does have this that these those there their known called name named "
    "give state answer following from with into than about".split()
)
#: A clause whose subject is a noun phrase ("the capital is …", "the official capital under the
#: Constitution Act is …", "its largest is …"): the subject is matched against the question's words.
_SUBJECT_STATED = re.compile(
    r"(?i)^\W*(?:the|its|their|his|her|our)\s+(?P<subj>[^,;:.!?()]{1,60}?)\s+(?:is|was|are|were|remains|became)\b"
)


def asked_words(query: str | None) -> set[str]:
    """The predicate words of the question (its first line): lower-case words of four letters or
    more, not wh-words, auxiliaries or generic verbs, and not a name (a capitalised word names the
    question's subject, "Canada", not what is asked of it)."""
    line = next((ln for ln in (query or "").split("\n") if ln.strip()), "")
    return {w for w in re.findall(r"(?<![\w'’-])[a-z][a-z-]{3,}\b", line) if w not in _NOT_ASKED}


def states_asked(clause: str, query: str | None, strict: bool = False) -> bool:
    """Whether ``clause`` opens by stating the question's own predicate of a value: its subject is a
    noun phrase holding a predicate word of the question ("the capital is Ottawa" for "What is the
    capital of Canada?", "the largest is Jupiter" for "… the largest planet …"); ``strict``: the
    subject's head word, before any preposition, is one ("the universal recipient is …" does not
    state "the universal donor")."""
    m = _SUBJECT_STATED.match(clause)
    if m is None:
        return False
    asked = asked_words(query)
    if strict:
        head = re.split(r"(?i)\s+(?:of|in|on|under|for|at|by|with|from|above|below|among)\s+", m["subj"])[0]
        return head.lower().split()[-1] in asked
    return bool(set(re.findall(r"[a-z-]+", m["subj"].lower())) & asked)


def ranks_context(query: str | None) -> bool:
    """Whether ranked values are context for ``query``: not when the question asks for a rank ("the
    second largest")."""
    return not (query and _ASKS_RANK.search(query))


_CLOSING = re.compile(r"(?i)(?:[,;:—–]\s*|\s)(?:so|therefore|thus|hence|which\s+makes\s+it|making\s+it)\s+")


def last_conclusion(candidate: str) -> str | None:
    """The part of ``candidate`` after its last closing conclusion word ("…, so Sydney"), else ``None``."""
    found = list(_CLOSING.finditer(candidate))
    if not found:
        return None
    rest = candidate[found[-1].end() :].strip(" .!?;")
    return rest or None


_PAREN = re.compile(r"\([^()]{0,200}\)")
_AND_CLAUSE = re.compile(r"(?i)(?:,\s*|\s)and\s+(?!the\b|a\b|an\b|\d)(?=[a-z])")


_ALTERNATIVE_ASIDE = re.compile(
    r"(?i)^\(\s*(?:or|either|maybe|perhaps|possibly|probably|alternatively|otherwise|unless|could\s+be|might\s+be)\b"
)


def alternative_aside(candidate: str) -> str | None:
    """The first parenthesis of ``candidate`` that offers an alternative ("(or oxygen)", "(maybe
    Lyon)"), else ``None``."""
    return next((m.group(0) for m in _PAREN.finditer(candidate) if _ALTERNATIVE_ASIDE.match(m.group(0))), None)


def without_asides(candidate: str, expected: list[str]) -> str:
    """``candidate`` without parentheses that hold none of the expected values' own parentheses."""
    if not any("(" in v for v in expected):
        bare = " ".join(_PAREN.sub(" ", candidate).split())
        if bare.strip(" .,;:!?"):
            return bare
    return candidate


def contrast_cut(candidate: str) -> tuple[str, str] | None:
    """``(claim, other)`` at the last contrast word of ``candidate``, else ``None``: after a
    correcting word ("but", "however", "actually") the claim is the part after it; after a conceding
    word ("although", "whereas", "while") the claim is the part before it, and so after a correcting
    word whose clause only concedes a possibility (:data:`CONCEDED`: "Lyon, but Paris is possible
    too")."""
    cuts = list(CONTRAST.finditer(candidate))
    if not cuts:
        return None
    last = cuts[-1]
    before, after = candidate[: last.start()], candidate[last.end() :].strip(" ,;:")
    if not after or not before.strip():
        return None
    concedes = last["concede"] or CONCEDED.search(after) is not None
    return (before, after) if concedes else (after, before)


_COPULA = re.compile(r"(?i)\b(?:is|are|was|were|has|had)\b")


def trailing_phrase(candidate: str) -> tuple[str, str] | None:
    """``(main, trailing)`` when a candidate's main clause (before its first comma, at least three
    words, with a copula) is followed by a trailing phrase ("Saturn is the largest planet, with
    Jupiter second")."""
    head, sep, tail = candidate.partition(",")
    if not sep or len(head.split()) < 3 or not _COPULA.search(head) or not tail.strip():
        return None
    return head, tail


def second_clause(candidate: str) -> tuple[str, str] | None:
    """``(first, second)`` for a candidate that joins two clauses with "and" (see the module docstring)."""
    m = _AND_CLAUSE.search(candidate)
    if not m or len(candidate[: m.start()].split()) < 3:
        return None
    return candidate[: m.start()], candidate[m.end() :]


_CLAUSE_END = re.compile(r"(?<!\d),|,(?!\d)|[;:(—–]|\s-\s")
_QUALIFYING = re.compile(r"(?i)\s*(?:who|which|whom|whose|that|the|a|an|being|according)\b")
_STOP = frozenset(
    "a an the it its it's is are was were been being be to that as of by with and people many most some".split()
)


def _restates_question(framing: str, query: str | None) -> bool:
    """The framing repeats the question's own wording ("usually credited" for "Who is credited
    with …?"): then it is what was asked, not a hedge."""
    if not query:
        return False
    asked = set(re.findall(r"[a-z]+", query.lower()))
    return any(w in asked for w in re.findall(r"[a-z]+", framing.lower()) if w not in _STOP)


def framed_spans(candidate: str, query: str | None = None) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``candidate``'s clauses framed as what others think or say
    (see :func:`attribution`), in order and not overlapping."""
    framed: list[tuple[int, int]] = []
    for m in ATTRIBUTED.finditer(candidate):
        if _restates_question(m.group(0), query):
            continue
        starts = [0] + [e.end() for e in _CLAUSE_END.finditer(candidate, 0, m.start())]
        start = starts[-1]
        if len(starts) > 1 and _QUALIFYING.match(candidate, start):
            start = starts[-2]  # "Pluto, the usual textbook answer": the framing qualifies the clause before it
        end_m = _CLAUSE_END.search(candidate, m.end())
        end = end_m.start() if end_m else len(candidate)
        if end_m and not candidate[m.end() : end].strip(" .!?'\"*_"):
            after = _CLAUSE_END.search(candidate, end_m.end())
            end = after.start() if after else len(candidate)
        if framed and start < framed[-1][1]:
            framed[-1] = (framed[-1][0], max(end, framed[-1][1]))
        else:
            framed.append((start, end))
    return framed


def unframed(text: str, query: str | None = None) -> str:
    """``text`` without its clauses framed as what others think or say (:func:`framed_spans`)."""
    out, at = [], 0
    for start, end in framed_spans(text, query):
        out.append(text[at:start])
        at = end
    out.append(text[at:])
    return " ".join(out)


def attribution(candidate: str, query: str | None = None) -> tuple[str, str] | None:
    """``(committed, framed)``: the parts of ``candidate`` outside and inside the clauses framed as
    what others think or say (:data:`ATTRIBUTED`), else ``None``. A framed clause runs from the
    clause boundary before the framing (so a subject is framed too: "Einstein is usually credited
    with it"; and the clause before that when the framed one only qualifies it, opening with a
    relative pronoun or an article: "Pluto, the usual textbook answer", "Bell, who is often
    credited with it") to the next boundary (",", ";", ":", "(", a dash); a framing that ends its clause
    ("According to legend, …", "Supposedly, …") frames the next clause as well. A framing whose
    words the question uses ("Who is traditionally credited with …?") is not a hedge."""
    framed = framed_spans(candidate, query)
    if not framed:
        return None
    committed, inside, at = [], [], 0
    for start, end in framed:
        committed.append(candidate[at:start])
        inside.append(candidate[start:end])
        at = end
    committed.append(candidate[at:])
    return " ".join(committed), " ".join(inside)


_PLACE_TAIL = re.compile(
    r"\b(?:in|at|near|from)\s+((?:the\s+)?[A-Z][\w'.-]*(?:\s+(?:(?:de|da|do|del|la|le|of|upon|on)\s+)?[A-Z][\w'.-]*)*)\s*$"
)
_PLACE = re.compile(r"^[A-Z][\w'.-]*(?:\s+(?:(?:de|da|do|del|la|le|of)\s+)?[A-Z][\w'.-]*){0,2}$")
_SYMBOL = re.compile(r"^(?:[A-Z][a-z]?\d*){1,6}$")


def appositive(main: str, tail: str) -> str | None:
    """The trailing phrase of ``main, tail`` when it is an appositive restating the main clause's
    last noun phrase, else ``None``: a place of one to three capitalised words after a main clause
    ending "in / at / near / from <Place>" ("… held in Rio de Janeiro, Brazil"), or one symbol or
    formula (element-like parts: "NaCl", "H2O", "Au") after a main clause ending in a lower-case
    word ("Table salt is sodium chloride, NaCl")."""
    phrase = tail.strip().rstrip(".!?;").strip()
    if "," in phrase or not phrase:
        return None
    main = main.rstrip()
    if _PLACE_TAIL.search(main) and _PLACE.match(phrase):
        return phrase
    last = main.split()[-1] if main.split() else ""
    if _SYMBOL.match(phrase) and last.isalpha() and last.islower():
        return phrase
    return None


#: An opening heading before a dash or colon ("j — that's the standard symbol, …", "Lyon: it has …").
_HEADING = re.compile(r"^[\W_]*(?P<head>[^—–:;,.()!?\n]{1,40}?)\s*(?:—|–|:|\s-\s)\s*(?P<rest>\S.*)$", re.DOTALL)
#: Words that open a reply without giving a value ("Short answer:", "Well —", "Yes:", "It's —").
_FILLER = frozenset(
    "yes no well so okay ok sure answer short final hmm note simply basically honestly actually correct right true "
    "false easy good great question of course definitely absolutely the a an it its it's that this here there is "
    "my in summary brief result verdict conclusion bottom line tldr".split()
)
#: The roles that speak in a council's or a chat's transcript, as a regex alternation: one vocabulary for
#: every rule that recognises a speaker's label ("Model B:", "Juror 2 —", "Chairman:"), here, in
#: :mod:`harness.metrics.structured` and in :mod:`harness.metrics.choice_extraction`.
SPEAKER_ROLES = (
    r"(?:assistant|ai|bot|model|response|reply|chair(?:man|woman|person)?|member|juror|judge|panelist|"
    r"moderator|agent|expert|respondent|speaker|reviewer)"
)
#: A speaker's label before a reply ("Model B:", "Member 2 —", "Chairman:", "Round 1:"): not a value.
_SPEAKER = re.compile(r"(?i)^[\W_]*(?:" + SPEAKER_ROLES + r"|user|council|round|panel|critic|baseline|arm)\b")


def heading(candidate: str, query: str | None = None) -> tuple[str, str] | None:
    """``(head, rest)`` when ``candidate`` opens with a short heading of one to four words before a
    dash or colon and explains after it ("j — that's the standard symbol, since i is reserved for
    current"), the heading giving a value: not only filler words ("Short answer:", "Well —") nor only
    words of the question ("The capital — …" for "What is the capital …?"); else ``None``."""
    m = _HEADING.match(candidate)
    if m is None or len(m["head"].split()) > 4 or _SPEAKER.match(m["head"]):
        return None
    words = [w for w in re.findall(r"[\w'’+#-]+", m["head"].lower()) if w not in _FILLER]
    asked = {w.lower() for w in re.findall(r"[\w'’-]+", query or "")}
    if not words or all(w in asked for w in words):
        return None
    return m["head"], m["rest"]


#: A symbol and its name glossed in a parenthesis or after a dash, either way round ("H (hydrogen)",
#: "Hydrogen (H)", "Fe — iron"): a symbol of one to four letters or a formula, the gloss of one to three words.
_GLOSSED = re.compile(
    r"^[\W_]*(?P<a>[A-Za-z][\w]{0,5}|[A-Za-z]+(?:\s+[A-Za-z]+){0,2})\s*(?:\(|\s[—–-]\s*|:\s*)(?P<b>[A-Za-z][\w]{0,5}|"
    r"[A-Za-z]+(?:\s+[A-Za-z]+){0,2})\)?[\s.!*_]*$"
)
_SYMBOLISH = re.compile(r"^(?:[A-Z][a-z]?\d*){1,4}$|^[a-z]{1,2}$")


def glossed(candidate: str) -> tuple[str, str] | None:
    """``(symbol, name)`` when the whole candidate is a symbol and its name, one glossing the other in
    a parenthesis or after a dash or colon ("H (hydrogen)", "Hydrogen (H)", "NaCl (sodium chloride)",
    "Fe — iron"); else ``None``. Both name the same thing, so either may match the expected value."""
    m = _GLOSSED.match(candidate.strip())
    if m is None:
        return None
    a, b = m["a"].strip(), m["b"].strip()
    if _SYMBOLISH.match(a) and not _SYMBOLISH.match(b):
        return a, b
    if _SYMBOLISH.match(b) and not _SYMBOLISH.match(a):
        return b, a
    return None


#: Latin and Greek singular and plural endings ("mitochondrion" / "mitochondria", "nucleus" /
#: "nuclei", "vertebra" / "vertebrae", "index" / "indices"), read both ways.
_CLASSICAL_NUMBER = (
    ("ion", "ia"),
    ("on", "a"),
    ("um", "a"),
    ("us", "i"),
    ("a", "ae"),
    ("is", "es"),
    ("ex", "ices"),
    ("ix", "ices"),
)
_SIBILANT = ("s", "x", "z", "ch", "sh")


def _english_number(word: str) -> list[str]:
    """``word``'s other number by the English rules: "-y" / "-ies", a sibilant and "-es" ("gas" /
    "gases"), else "-s" ("ohm" / "ohms"; "bits" / "bit")."""
    if word.endswith("ies"):
        return [word[:-3] + "y"]
    if word.endswith("es") and word[:-2].endswith(_SIBILANT):
        return [word[:-2]]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return [word[:-1]]
    if re.search(r"[^aeiou]y$", word):
        return [word[:-1] + "ies"]
    return [word + "es"] if word.endswith(_SIBILANT) else [word + "s"]


def number_variants(value: str) -> list[str]:
    """``value`` with its last word in the other grammatical number ("mitochondria" →
    "mitochondrion"; "nucleus" → "nuclei"; "cells" → "cell"; "ohm" → "ohms"), for a lower-case last
    word (a common noun: not a name, "Einstein" / "Einsteins", nor a symbol, "Au") of three letters
    or more; the Latin and Greek endings only for words of five or more. An empty list otherwise."""
    head, _, last = value.strip().rpartition(" ")
    if len(last) < 3 or not last.isalpha() or not last.islower():
        return []
    out = _english_number(last)
    if len(last) >= 5:
        for singular, plural in _CLASSICAL_NUMBER:
            for have, make in ((plural, singular), (singular, plural)):
                if last.endswith(have) and len(last) - len(have) >= 3:
                    out.append(last[: len(last) - len(have)] + make)
    return [f"{head} {w}".strip() for w in dict.fromkeys(out) if w != last]


#: A possessive name used as a predicate ("general relativity is Einstein's.", "The idea was
#: Darwin's"): the name itself is what is stated; a possessive before a noun ("Einstein's ideas") is not.
_PREDICATIVE_POSSESSIVE = re.compile(
    r"(^[\W_]*|\b(?:is|was|are|were)\s+(?:all\s+|entirely\s+|really\s+|wholly\s+|mostly\s+)?)"
    r"((?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*)['’]s(?=\s*(?:[.,;:!?)—–]|$))"
)


def without_predicative_possessive(candidate: str) -> str:
    """``candidate`` with a possessive name that stands as a predicate read as the name ("… is
    Einstein's." → "… is Einstein."); "Einstein's earlier ideas" is unchanged."""
    return _PREDICATIVE_POSSESSIVE.sub(r"\1\2", candidate)


MARKUP_QUOTES = " \t*_`\"'“”‘’,"
#: The noun a question asks for, right after its wh-word ("Which protocol …", "What data structure …").
_ASKED_NOUN = re.compile(r"(?i)\b(?:which|what)\s+(?P<n>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)")
_FIELD = re.compile(r"^[ \t>*_-]*[\"']?(?P<k>[A-Za-z][\w \t-]{0,30}?)[\"']?[ \t]*[:=][ \t]*(?P<v>\S[^\n]*)$")


def asked_field(text: str, query: str | None) -> tuple[str, str] | None:
    """``(key, value)`` of a structured answer — two or more ``key: value`` lines — whose key is the
    noun the question asks for ("protocol: HTTPS" for "Which protocol normally runs on port 443?");
    else ``None``."""
    m = _ASKED_NOUN.search(query or "")
    if m is None:
        return None
    words = m["n"].lower().split()
    asked = {words[0], " ".join(words)}
    fields = [f for ln in text.split("\n") if (f := _FIELD.match(ln.strip()))]
    if len(fields) < 2:
        return None
    hits = [f for f in fields if " ".join(re.split(r"[\s_-]+", f["k"].strip().lower())) in asked]
    if len(hits) != 1:
        return None
    return hits[0]["k"].strip(), hits[0]["v"].strip().strip(MARKUP_QUOTES)
