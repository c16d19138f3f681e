"""Answer extraction: find the part of a free-text answer that an objective check compares, and say why.

This module defines how an answer is read, one definition for members, chairman and baseline
alike; the readers live in one module per expected kind (:mod:`~harness.metrics.number_extraction`,
:mod:`~harness.metrics.choice_extraction`, :mod:`~harness.metrics.boolean_extraction`,
:mod:`~harness.metrics.short_extraction`, :mod:`~harness.metrics.code_extraction`) on a shared base
(:mod:`~harness.metrics.extraction_base`), with their rule tables in the ``*_cues`` modules.

Every extractor returns an :class:`Extraction` naming the value it found, the rule that found it
(``method``), a ``confidence`` for that rule (:data:`CONFIDENCE`) and a readable ``detail``, so a
failed check shows *what* was compared. An answer that commits to two different values gets the
method ``ambiguous`` (value ``None``): the check counts it apart from a wrong answer.

Answers longer than :data:`MAX_ANSWER_CHARS` are cut to their first :data:`HEAD_CHARS` and last
``MAX_ANSWER_CHARS - HEAD_CHARS`` characters before any rule runs (``capped`` is then true and the
detail says so); every rule is linear in the length of what it reads, and a clause is at most
:data:`CLAUSE_CHARS` long, so a hostile 1 MB answer costs no more than a 32 KB one.

Shared definitions
    *Answer cue*: "answer is / was / would be / will be", "answer:" or "answer =" (optionally
    "final", "correct", "right", "short" answer; "answer first:", "answer in short:"), a line
    that is only "Answer" / "Final answer" / "Result" / "Verdict" / "Bottom line" / "TL;DR" (also a
    markdown or bold heading, and "Ergebnis", "Résultat", "Resultado", "Risultato", "Antwort",
    "Réponse", "Respuesta", "Risposta"; a heading other than "Answer" over a list is not a cue), a
    sentence-initial label "Final:" ("Final verdict:",
    "Result:", "Ergebnis:", "Résultat :", "Choice:", "Verdict:", "TL;DR:", "Bottom line:"; a council's "Ruling:",
    "Consensus:", "Council answer:", "Majority view:"; a JSON field ``"final": "yes"``), or
    GSM8K's last line ``#### 42``. *Marked item*: of the candidates of a list, a checklist, a table
    (not its header row) or a verdict record ("Option B: yes", "A: ✗"), the one picked — by a
    picking mark ("- 1945 ← end of the war", "| stack | LIFO ✅ |", "- [x] Jupiter"), or by a
    positive verdict or a check tick (✓) when every other candidate is rejected ("| Canberra | yes
    |" among "no" rows, "B: ✓" among "✗", a box ``[ ]``):
    :func:`harness.metrics.extraction_base.marked_item`; it is read after ``bold`` for choices,
    short answers and numbers (numbers only strictly: a tick only among rejected candidates, never
    an item that computes or checks), and for a yes/no question a list whose checked item is (or
    is not) the question's predicate answers it before the opening-word rule (method ``marked``). Its *clause* is the
    rest of that sentence, or the next non-empty line when it is empty; cues
    whose clause starts with "not", and cues qualified as a trap or someone else's ("the naive /
    tempting / simple / textbook answer is"), are skipped. *Negated parts* of a clause are dropped before it
    is read: a parenthesis starting with "not", and ", not …" / "rather than …" / "instead of …" up
    to the next punctuation, so "12/25/2006 (not 12/24/2006)" reads as "12/25/2006".
    *Conclusion cue*: therefore, thus, hence, so, consequently, in total, altogether, overall, in
    conclusion, which gives, giving (not the verb after "after", "when", "by", …: "after giving each
    friend 2"), "total/sum/result is". *Sentences* end at ". ! ? ;" and line breaks, not at the full
    stop of a title ("Dr.") or of a dotted abbreviation before a lower-case word ("the U.S. president"),
    and, for numbers, not at a ";" inside a parenthesis.

What every rule reads is the reply after a reasoning model's visible thinking (``<think>…</think>``
set aside by :func:`harness.metrics.thinking.visible_reply` before extraction starts), without a
speaker label opening a one-speaker reply ("Assistant:", "Model B:", "Chairman:"), and of a
transcript closed by its chair's turn only that turn
(:func:`harness.metrics.structured.without_speaker`); a structured reply — one JSON object, or a
record of ``key: value`` lines — is read by its answer field alone
(:func:`harness.metrics.structured.structured_answer`).

Rules, in order of precedence (the first rule that yields something wins). Rule 0 of every type is
``declared``: the value of the declared answer line ``Answer: ...`` that the answer-format protocol
asks every subject for (:mod:`harness.metrics.declared`; the last line-initial "Answer:" / "Final
answer:"), read with the same clause reader as an answer cue (for a choice, a line that is exactly
one option's text first; a value that asks and then answers, "Jupiter? No — Saturn.", after its
last question mark; for a choice, a line whose first sentence also names another option outside
a negation or concession — "B (or C)", "B; C if …" — or asks — "B?" — is ``ambiguous``). The
later rules run only when there is no declared line or it holds nothing of the expected kind;
``Extraction.declared`` says which.

Numbers (:func:`extract_number`; the readers are in :mod:`harness.metrics.numbers`: digits,
spelled-out numbers through ``text2num``, LaTeX through ``math-verify``, and — only when the
expected value is 0 — zero words such as "no brothers" and "none")
    1. ``boxed`` — the last ``\\boxed{...}`` (read whole as one number or expression, else as a
       clause). If an answer cue after it gives a different number: ``ambiguous``.
    2. ``answer_cue`` — the last cue whose clause holds a number.
    A declared or cued number that the text after it takes back (a word such as "wait", "mistake",
    "recount", "let me redo" — :data:`harness.metrics.number_cues.TAKE_BACK` — followed by a
    different number) is ``ambiguous``.
    3. ``bold`` — the last ``**...**`` span that is just a number (plus up to two words of unit,
       unit symbols such as "°C", "m²", "µm" included, a degree sign also attached: "720°"),
       bold headings ("**Step 3: Share**", "**Total:**") passed over; when the last bold span that
       holds a digit says more than a number ("**66 girls in the band**"), no earlier bold number
       is taken ("**264 girls**" was an intermediate) and the later rules read the answer.
    4. in the last sentence that holds a number: ``equals`` — the number after its last ``=`` or
       ``≈`` (the exact value before a last ``≈`` that only rounds it: "1/3 ≈ 0.333", "2√2 ≈
       2.83"), unless a conclusion cue or a result phrase ("for a total of", "making", "which
       brings the total to", "leaves 26", ", leaving 26":
       :data:`harness.metrics.number_cues.RESULT_CUE`) follows it (``ambiguous`` when a turn —
       "but", "however", "yet", "though", "instead" — follows it with a different number: "60 / 12 =
       5 would be the naive answer, but … 4 weeks"); else
       ``conclusion_cue`` — read the clause after its last conclusion cue or result phrase (when the
       question asks "How many <noun>" and one value in that clause stands with the noun — "so 60
       tiles fill 5 boxes" — that value).
    5. ``leading`` — the answer states one number in a short first sentence (at most
       :data:`LEADING_WORDS` words) and the rest explains it: the last sentence has no ``=`` or
       conclusion cue and is not a labelled value ("Sale price: $30."), no correction word
       ("actually", "wait", "instead", "recount", ...) follows,
       and, when the question is known, that number is not one the question gave, the first
       sentence is not a hypothesis ("if", "would", "the textbook answer", "naively", "in theory",
       "…") nor a question ("37,500? …") and no "no" follows it; or the first
       sentence opens with a clause on the question's subject that holds one number (not a
       comparison, not a given) and goes on, after a dash or a colon, with the working ("Tom has a
       dozen apples — Jerry has 4 and …": :func:`harness.metrics.number_cues.head_clause`), or that
       opens with a value standing alone (a number and at most two unit words, not a step heading)
       before a dash and goes on in words ("86 400 — that's 24 × 3600", "52 cards – four suits …").
       Neither leads when a turn, a disagreement or a first-person commitment after it is followed by
       a different number ("72 — that's what two members said, but I get 75", "$50. I disagree: it
       was $48": :data:`harness.metrics.number_cues.OVERRIDE`).
    6. ``last_number`` — when the last sentence states numbers of two or more subjects in its
       clauses ("The variance is 4, and the standard deviation is 2."), the number of the one
       subject that shares the question's words (:func:`harness.metrics.number_cues.anchored_clause`);
       else, when the question asks "How many <noun>" and the last sentence with a
       number holds several values of which one stands with the noun ("Three marbles remain after
       giving each friend 2"), that value; else the last number of the last sentence that holds
       one; when the question is known, numbers the question gave are passed over
       (``last_new_number``) if the answer has any other — except when the last sentence is short,
       states a single value and does not restate the question ("given", "we know", "starts with",
       "each", "per", a question mark; nor restates a given with the noun the question gives it
       while asking "How many" of another noun: "The flock has 20 chickens" for "… 20 chickens. How
       many cups …?"): then its number is the answer even if the question gave it. A spelled-out
       percentage ("Fifteen percent") is a percentage like "15%", so it matches the fraction 0.15.
    After every rule: a number read from an answer whose last line gives results under two
    contrasting conditions — "without X" and "with X", "before tax" and "after tax", "in theory"
    and "in practice", "if … otherwise", "assuming … if", two "in the … case", or a parenthesis with a number under a
    condition ("5 weeks (4 with interest)"; not one that restates the result for the reader's way of
    measuring: "(that's 48 tablespoons, if you're measuring that way)") — when that number is one of
    the line's two or more results the question did not give, is ``ambiguous``
    (:func:`harness.metrics.number_cues.scenario_pair`).
    Before any rule, notations are rewritten to digits (:mod:`harness.metrics.numerals`: "3½",
    "3 1/4", "10⁹", "2.500.000", "half a dozen", "π/4", ``\\frac{\\sqrt{3}}{2}``; a decimal comma
    before one, two or four or more digits, or after a lone zero: "1,15", "0,7917", "0,375";
    thousands grouped by spaces before a decimal comma, "11 576,25"; Swiss "1'250" and "1'100.–"; "70.000"
    as 70000 only when the answer shows the dot-for-thousands convention, or when its group ends in
    "00" and the question asks for a count: "604.800" for "How many seconds …"). The ``equals``
    rule and a clause whose ``=`` is followed by an expression in a variable ("= 3(2x+1) + 0")
    give no number (``none``).
    Reading a clause (and the fallback rules' sentences): a reason clause after the result is cut
    off ("3/2 since 4^(3/2) = 8", "5, because 12 − 7 = 5":
    :func:`harness.metrics.number_cues.without_reason`), and so is a hypothetical about another
    question after the answer ("36 — and if you needed 15% more instead, that would be 276", "$18,
    but if you meant the price with the coupon instead, $15": an "if"/"had" clause with "instead",
    "rather", "meant", "wanted", …, or any "if"/"had" clause with "instead": "If it had taken 3
    hours instead, …"; :func:`harness.metrics.number_cues.without_hypothetical`), and so is a
    check clause after the result ("… says 12 and Euler agrees: 8 − 12 + 6 = 2":
    :func:`harness.metrics.number_cues.without_check_clause`; a
    sentence that is only such a hypothetical is passed over by the fallback rules after an earlier
    sentence with a number); a clause offering "either … or …", or
    turning after its first number to a different one ("5, but with interest she needs 4"), is
    ``ambiguous``; a clause that is one LaTeX expression or a fraction with a parenthesised term
    (``\\frac{1+\\sqrt{3}}{2}``, ``(3-2)/2``) is read whole, never by its first digit; two different
    numbers joined by "or" ("8 or maybe 9"; not two forms of one value, "1/2, or 50%") are
    ``ambiguous``, and so are a clause that offers or
    lists another number ("12 (or 13 if …)", "12, possibly 13", "4 and 5":
    :data:`harness.metrics.number_cues.HEDGED_NUMBER`) and a clause that ends on a range ("between
    12 and 14",
    "from 3 to 5"; in the fallback rules' last sentence only "between");
    else the number after the last ``=``/``≈`` that states a result (not a condition such as "for
    n = 10", "at x = 3": :data:`harness.metrics.number_cues.CONDITION_EQ`), else the number right
    after the last "i.e." / "that is" / "in other words" ("…, half of it, i.e. 0.5"), else the
    number right after the last ": ", else the first number after a range ("from
    −14 to 4", "between 3 and 5"), else — when the clause holds several numbers and a verb such as
    "is", "are", "equals", "gives", "sums to" comes after the first — the first number after the
    last such verb ("the first 12 odd numbers sum to 144"; not an appositive "which is"; "left" and
    "remain" only when a number follows them, not in "26 left over after giving 10 away"), else the
    first number. Numbers that compare ("2 times as many", "25% more than", "$10 off"), name a unit ("in one
    day") or sit in a circumstantial phrase ("from 4 boxes", "in 2 hours", "out of 12") are passed over
    in a clause and by the fallback rules when other numbers remain. Numbers inside a
    trailing parenthesis, "not 5", list markers ("1. ", "2) " at the start of a line,
    when at least two lines carry one: a lone "206. A newborn has …" opens with its answer), and
    sentences that check a result — they start with "Check:"/"Verify"/"Note"/"I double-checked",
    open with a check heading of at most three words before it ("Quick check:", "Euler's formula
    checks out:", "A quick verification —"; cues after it included), or hold a check phrase before
    their first digit with no conclusion cue after it ("Plugging it back in checks out: 3·2 + 4 =
    10") — are passed over by the fallback rules when other numbers remain; so are the sentences
    from a question to the reader after an earlier number on ("Would you like it in mph? That's
    about 37.3 mph."), a counterfactual after an earlier number when the question poses no condition
    ("If the drain rate doubled, it would take 10 minutes."), a restatement in another unit after a
    result stated with "=" ("… = 20 min. Equivalently 1200 s."; kept when its number stands with
    the asked noun), and sentences that report what a council participant gave ("Member B: $50.",
    "Juror 2 said 48."; when every number is such a report, the report of the participant the
    answer endorses — "B is right", "the chair sides with A", or "That's correct." right after a
    report of one number — gives the value, and without an endorsement the answer is ``ambiguous``).
    Markdown footnotes ("… 5,050.[^1]", "[^1]: The story goes …") are dropped
    before any rule. With the question known and not asking for a year or a date, a year that dates a
    figure ("8,849 m by the 2020 survey", "as of 2023", "according to the 2020 census") is passed
    over by the fallback rules like a circumstantial number
    (:func:`harness.metrics.number_cues.dating_year`). Question anchoring
    (answer first, context after): with the question known, when the first sentence with a number
    shares a content word with the question's asking sentence and every later sentence with a
    number speaks of another subject or event — it shares no content word with the question, opens
    with a noun phrase of its own (not a pronoun or a link), carries a sign of another subject (a
    superlative, an ordinal, "other", "another", "followed", "later", "by comparison", … that the
    question does not use) and neither computes, concludes, turns nor claims to be the real or
    correct value — the later sentences are context and the fallback rules read the first one alone
    ("…, leaving a typical adult with 206. The smallest, the stapes, is about 3 mm long.";
    :func:`harness.metrics.number_cues.context_after`).

Choices (:func:`extract_choice`; ``letters=False`` for options given as a list of texts)
    1. ``boxed``; 2. ``answer_cue`` — in the clause (negated parts dropped): a leading letter, else
    the options it mentions (exactly one, else ``ambiguous``); 3. ``bare_letter`` — the whole
    answer is one letter, or ``whole`` — the whole answer is one option's text; 4. ``bold`` — the
    last bold span that names exactly one option; 5. mentions by sentence: an option is mentioned
    by a marker ("Option B", "(B)", "B)", a capital letter standing alone) or by its text as whole
    words; sub-clauses holding a negation ("not", "n't", "never", "wrong", "incorrect", "unlike",
    "eliminate", "rule out", "rather than", ...) are ignored, and an option that such a sub-clause
    rejects (it opens with the negation, says "not C", or calls the option wrong or ruled out) is
    not named by the rest of its sentence either ("Not C, since C forgets the sin x term"); an
    option a sub-clause places below another — a rank word after it ("The United States is a
    distant third", "B is a close second") or a comparison before it ("ahead of China", "followed by
    B and then C", "it overtook China", "longer than the Amazon", "far north of Rome (42° N), Madrid
    and Cairo" — a list after it, across asides, too; a comparison with "than" or "north of" only on
    the question's own scale, "longer than" for "the longest", not "shorter than"; and only when
    every mention of the option in the sentence is so placed: :data:`harness.metrics.text_cues.RANKED_BELOW`,
    :data:`~harness.metrics.text_cues.OUTRANKED`) — is context, not named (nor offered as an
    alternative: "more northerly than Madrid or Cairo"), unless the question asks for a rank
    ("second", "runner-up"). When
    an option is an expression ("x cos x + sin x"), every option is found only as a whole
    expression with its operators (a leading minus sign makes an option one: "−cos x"), an "=" and a
    value beside it not extending it ("2^10 = 1024", "d/dx sin x = cos x"; but "sin x + x cos x"
    names neither "sin x − x cos x" nor "x cos x":
    :func:`harness.metrics.choice_cues.expression_pattern`). The last sentence that mentions an
    option decides (``conclusion`` with a conclusion cue, else ``last_mention``) when it mentions
    exactly one; when it names several, the part after its last turn ("but", "however", "so",
    "which leaves", "only") decides if it names exactly one (``conclusion``) — checked first: a
    leading premise ("If tomorrow is 10/03, today is 10/02.", "Since …,", "Assuming …,") whose
    options are assumed, the part after it deciding when it names exactly one; else the first
    sentence when it mentions exactly one and holds no negation (``leading``). A sentence wholly in
    parentheses after the others ("(−cos x, option B, is the antiderivative …)") is a remark beside
    the answer: its options count only when no other sentence names one. A last sentence naming
    several that names exactly one outside its parenthetical asides, the asides naming the others
    only as remarks ("2^10 = 1024 is the largest (10^3 = 1000, 3^6 = 729)"; not an aside that offers,
    adds, hedges or negates: "(or B)", "(B could also be argued)"), gives that one (checked before
    the premise and the turn); a first and a last sentence naming different options without a
    conclusion cue — unless the first is a bare answer of at most three words ("A.", "CO₂ — carbon
    dioxide.") or states a word of the question ("Mercury is closest") and every later naming
    sentence gives another option only another predicate (no question word — one it is only compared
    away from, "… than the powerhouse", does not count —, no superlative, nothing
    bare, no turn, negation, hedge or take-back: "Venus is much hotter"; ``leading``) —, or a final
    sentence naming
    several, are ``ambiguous``; so is a last naming sentence, or a cued clause, that offers two
    options as alternatives ("A or D", "12/24/2006 or 12/25/2006"), and so is an answer that opens
    between two options with a hedge ("Could be A or B …") and whose last naming sentence only
    concedes the other ("I'd lean B but A is defensible", "Leaning B, but A can't be ruled out"). Option texts of one
    character, or equal to a letter key, are matched only as letters. A speaker's label opening a
    line ("Model A:", "Member 2 —") is not a mention. For a question asking for the option that is
    not ("Which is NOT …", "all EXCEPT", "the odd one out"), an answer whose opening — its first
    sentence, or the part before a dash or colon — names one option and which afterwards names the
    others only as a group, two or more together, with no turn or take-back, gives that option
    (``leading``: "C — yellow is what you get by mixing red and green"). Options that are all plain
    numbers are also named by an equal value in another notation ("0.450" names "0.45") or spelled
    out ("Nineteen forty-five" names "1945", a year read as two numbers together; values of ten or
    more: "two of three jurors" does not name options 2 and 3).
    A lower-case letter counts only in parentheses, before ")" or alone, so "the answer is a city"
    is not option "a".
    Before rule 5 (:mod:`harness.metrics.choice_cues`): 4a. options that are a truth-value pair
    (True/False, Yes/No, plausible/implausible) are read as a yes/no answer (the boolean rules, or
    for a pair such as plausible/implausible "not plausible" as the negative one); 4b. ``leading``
    — the answer opens with an option's marker ("(c) Not enough information — …"), no other
    option's marker and no hedge on that line; 4b'. ``leading`` — the answer opens with an option's
    text as a heading, before a dash, colon or full stop, then explains ("Mercury — it orbits well
    inside Venus's orbit"), with no turn, hedge, negation or take-back after it and no later
    sentence naming another option without it; 4c. ``leading`` — the first sentence points at an
    option by position ("The first one."). Rule 5 finds option texts as written (punctuation
    between words, a plural or singular last word) and shields texts and markers before splitting
    a sentence, so a negation inside an option's own text does not negate it. In a clause (rules
    0-4) a short phrase that only one option's distinctive words contain, in that option's order
    ("Answer: white"; "25/12/2006" does not name "12/25/2006"), names it. An answer that walks
    through the options line by line ("A) …", "B) …") and has no
    conclusion cue in its last naming sentence, or stops mid-sentence, gives nothing (``none``).

Booleans (:func:`extract_boolean`; values ``true`` / ``false``)
    Polarity words: yes, true, correct, valid → true; no, false, incorrect, wrong, invalid → false;
    "not"/"n't" before one flips it ("not true" → false); "no" before a noun is a determiner, not a
    verdict ("with no remainder", "no touchdowns"). 1. ``boxed``; 2. ``answer_cue`` (rules 0,
    2 and 3 are ``ambiguous`` when a later answer cue, or a sentence after a take-back word such as
    "I should correct myself" or "actually", gives the other value). Then, before rule 3: an answer that
    concludes both ways ("…, so yes; but …, so no") or ends by leaving it open ("It depends on the
    reader.", a last sentence concluding "…, so it really depends on who you ask" or "both yes and
    no are defensible": :data:`harness.metrics.boolean_cues.OPEN_ENDED`; not one a turn then settles:
    "It depends on the definition, but yes — …") while using a yes/no word is ``ambiguous``;
    3. ``leading`` — the answer's first word ("True — you turn around…", "No, …"; not "No doubt"),
    also after an opening viewpoint adverb and comma ("Botanically, yes — …", "Technically, no:";
    not a hedging or limiting one: "Probably, yes", "Mostly, no", "Theoretically, yes"),
    or "Absolutely not" / "Not at all" / "That's not right" (false) and "Absolutely." / "Of course,"
    / "Indeed" / "That's right:" / "You're right," / "yep" / "yup" / "Sí," (true); a leading word at
    once followed by the opposite bare word ("Yeah, no.", "yep — no wait, …") is ``ambiguous``;
    4. ``conclusion`` — the last sentence saying "is/are … true/false/correct/…", a conclusion cue
    or an arrow ("… not a century year → yes") followed by a polarity word, or only a yes/no word
    ("… where you started. Yes."), each read without its clauses framed as
    what others say (:func:`harness.metrics.text_cues.unframed`: "It's commonly said to be true,
    but it's a myth" is not a true verdict); 5. ``bold``;
    5a. ``conclusion`` — a yes/no given as what is said ("a typical person would answer No") with no
    turn after it (:func:`harness.metrics.boolean_cues.said_verdict`). A clause with both
    polarities, or a leading word and a conclusion that disagree, is ``ambiguous``. Without any polarity word
    (:mod:`harness.metrics.boolean_cues`): 6. ``leading`` — with the question known, an answer
    opening with the question's predicate adjective or its opposite standing alone ("Plausible —",
    "Implausible: …" for "Is the sentence plausible?"); else an answer opening with "Not …" (false)
    or a short pronoun-and-auxiliary sentence ("It will." true, "It doesn't." false); 7.
    ``conclusion`` — "the statement holds / does not hold / is accurate", "that is a myth / a
    common misconception" (false); 8. ``predicate`` — with the question known: a comparison with
    the bound of a comparing question ("1024 > 1000", "which is greater than 1000" answer "Is 2^10
    greater than 1000?": :mod:`harness.metrics.compare_cues`), else the first clause that gives the
    question's predicate for its subject ("51 is not prime" answers "Is 51 prime?"), or its
    opposite ("so it's composite": false; "X lies" for "Does X tell the truth?": false); not a
    clause asked as a question, and nothing when such clauses disagree. A leading yes/no followed
    by "it depends" or turned by a bare opposite truth word is ``ambiguous``. Last, ``marked`` — a
    list whose one checked item is the question's own predicate ("- fruit ✅ …" for "Is a tomato a
    fruit?": true; the checked item is one the question names), or that checks another item while
    listing one the question names unchecked (false).

Short answers (:func:`extract_answer`, for ``exact`` and ``any_of``)
    ``boxed``; ``answer_cue``; ``bold`` (the last bold span of at most 8 words not ending in ":");
    with the question known, ``answer_cue`` also for a structured answer (two or more ``key: value``
    lines) whose one key is the noun the question asks for ("protocol: HTTPS" for "Which protocol …?":
    :func:`harness.metrics.text_cues.asked_field`); ``marked`` (several marked items: ``ambiguous``);
    ``conclusion`` (the last line starts with a conclusion cue: the clause after it); ``conclusion``
    also for an answer that opens by thinking aloud ("Hmm, cargo.", "Let me think.", "Let's see —"):
    its last sentence when short (at most six words), else the clause after its last conclusion cue;
    else the first sentence of the first non-empty line (a middle initial, "Neil A. Armstrong", or a
    numbering abbreviation, "Sonata No. 14", does not end it; one that only places a value below another — "Saturn is
    second; the largest is Jupiter", "Copper comes third. …" — is context and the next sentence of
    the line is read instead, unless the question asks for a rank; when that sentence is a question — "Shakespeare? No,
    Marlowe." — the rest of the line instead; when it opens with "Not …" and goes on after a
    semicolon, dash or comma — "Not Raphael; Leonardo" — what follows; when a take-back word cuts
    it — "Michelangelo — no wait, Leonardo" — the part after it) (``whole`` when that is the whole answer, else
    ``first_sentence``; a first sentence longer than :data:`SHORT_ANSWER_WORDS` words is cut at
    its first comma, unless a correcting word after it turns to a conclusion ("…, but …, so I'd name
    Hilbert") or to a clause stating what the question asks — its subject a noun phrase holding a
    predicate word of the question, "…, but the capital is Ottawa" for "What is the capital of
    Canada?" (:func:`harness.metrics.text_cues.states_asked`) —: then the whole sentence is kept and
    the contrast rule reads the part after the turn). Negated parts are dropped from every extracted clause.
    How the read answer is then compared is :mod:`harness.metrics.correctness`'s (``exact``): among
    others, a symbol glossed by its name is one answer ("H (hydrogen)"), an answer opening with
    another value as its heading names the expected one only after it ("j — …, since i is reserved
    for current": ``ambiguous``; a heading that names it, the rest only explaining — no turn,
    negation, hedge, framing or commitment after it — is compared alone: "Beethoven — Piano Sonata
    No. 14 …"), a common noun matches in the other number ("mitochondrion"), and a
    possessive name standing as a predicate is the name ("… but general relativity is Einstein's."),
    and a value read without a cue is no commitment when a clause or a later sentence gives another
    name as what is asked ("Paris — the tempting guess. Lyon is the capital.", "…, it's Lyon").

Code (:func:`extract_code`)
    ``fenced_defines`` — the last fenced block that defines the expected function; else
    ``unfenced_defines`` — the last stretch of unfenced code (after prose, or around stray fence
    lines) that parses and defines it; else ``first_python_block`` (the first block labelled
    python/py/python3) or ``first_block``; else ``whole_answer`` when the whole answer parses as
    Python (``ast.parse`` only, never executed) and defines the function (or, with no function
    named, holds at least one statement that is not a bare expression, so that a prose word like
    "Paris" is not taken for code).
"""

from __future__ import annotations

from harness.metrics.boolean_extraction import extract_boolean
from harness.metrics.choice_extraction import extract_choice
from harness.metrics.code_extraction import TRIM_LINES, code_blocks, extract_code
from harness.metrics.extraction_base import (
    BLOCKING_WORDS,
    CLAUSE_CHARS,
    CONFIDENCE,
    HEAD_CHARS,
    LEADING_WORDS,
    MAX_ANSWER_CHARS,
    MAX_CUES,
    SHORT_ANSWER_WORDS,
    Extraction,
    answer_cues,
    cap_text,
    drop_negated,
    normalize_answer,
    phrase_match,
    truncated,
)
from harness.metrics.number_extraction import extract_number
from harness.metrics.numbers import ParsedNumber, find_numbers, math_value, parse_number
from harness.metrics.short_extraction import extract_answer

__all__ = [
    "BLOCKING_WORDS",
    "CLAUSE_CHARS",
    "CONFIDENCE",
    "Extraction",
    "HEAD_CHARS",
    "LEADING_WORDS",
    "MAX_ANSWER_CHARS",
    "MAX_CUES",
    "ParsedNumber",
    "SHORT_ANSWER_WORDS",
    "TRIM_LINES",
    "answer_cues",
    "cap_text",
    "code_blocks",
    "drop_negated",
    "extract_answer",
    "extract_boolean",
    "extract_choice",
    "extract_code",
    "extract_number",
    "find_numbers",
    "math_equivalent",
    "normalize_answer",
    "parse_number",
    "phrase_match",
    "truncated",
]


def math_equivalent(text: str) -> float | None:
    """The value of ``text`` read as one mathematical expression (see :func:`harness.metrics.numbers.math_value`)."""
    return math_value(text)
