"""Writes tests/data/extraction_corpus.jsonl: labelled (expected block, answer, truly correct?) triples.

Run ``python tests/data/make_extraction_corpus.py`` after editing. Every answer below was written in a
style models produce, and its label says whether the answer *commits* to the expected value — not
whether the harness's extractor finds it. Rules used for the labels:

* a final answer that is corrected later counts as the correction ("5 … wait, 6. Answer: 6");
* an answer that hedges between two values ("7 or 8") or never finishes (truncated) is not correct;
* "not X" never commits to X; the right value appearing only as a distractor is not correct;
* a percentage ``p%`` answers a proportion ``p/100``; a proportion ``0.25`` does not answer a
  question that asks for a percentage (25);
* code is correct when it implements the task (the sandbox runs it against the case's tests).

Hand-written cases, including every example of issue 12, are in ``extraction_corpus_hand.yaml``.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("extraction_corpus.jsonl")

Row = dict[str, Any]
rows: list[Row] = []


def add(kind: str, query: str, expected: dict[str, Any], correct: bool, style: str, answer: str) -> None:
    rows.append({"id": f"{kind}-{len(rows):04d}", "style": style, "query": query, "expected": expected,
                 "answer": answer, "correct": correct})


# ----------------------------------------------------------------------------------------- numeric
# Each problem: the question, the value, ways to write it, working that leads to it, a plausible wrong
# value with working that leads to that, and a unit word.

NUMERIC: list[dict[str, Any]] = [
    dict(q="A shop has 12 apples and sells 3 of them. How many apples are left?", v=9, vt="9", words="nine",
         unit="apples", work="The shop starts with 12 apples. It sells 3, so we subtract: 12 - 3.",
         w=15, wt="15", wwork="The shop starts with 12 apples and 3 are involved, so 12 + 3."),
    dict(q="How many integers x satisfy -15 < x < 5?", v=19, vt="19", words="nineteen", unit="integers",
         work="The integers strictly between -15 and 5 run from -14 to 4. Counting them: 4 - (-14) + 1.",
         w=20, wt="20", wwork="The integers from -15 to 5 without the ends: 5 - (-15)."),
    dict(q="What is 17 multiplied by 23?", v=391, vt="391", words="three hundred ninety-one", unit="",
         work="17 × 20 = 340 and 17 × 3 = 51; adding the parts: 340 + 51.",
         w=381, wt="381", wwork="17 × 20 = 340 and 17 × 3 = 41 (slip); adding: 340 + 41."),
    dict(q="A train travels 120 km in 1.5 hours. What is its average speed in km/h?", v=80, vt="80",
         words="eighty", unit="km/h", work="Average speed is distance over time: 120 km / 1.5 h.",
         w=180, wt="180", wwork="Average speed is distance times time: 120 × 1.5."),
    dict(q="What is the sum of the integers from 1 to 50?", v=1275, vt="1,275", words="one thousand two hundred "
         "seventy-five", unit="", work="Use n(n+1)/2 with n = 50: 50 × 51 / 2.",
         w=1250, wt="1,250", wwork="Use n²/2 with n = 50: 2500 / 2."),
    dict(q="A jacket costs $40. It is discounted by 15% and the discounted price is then taxed at 10%. "
           "What is the final price in dollars?", v=37.4, vt="$37.40", words="thirty-seven point four",
         unit="dollars", work="After the discount: 40 × 0.85 = $34. With tax: 34 × 1.10.",
         w=38, wt="$38", wwork="The net change is -15% + 10% = -5%, so 40 × 0.95."),
    dict(q="The temperature was 5 degrees and dropped by 12 degrees overnight. What is the temperature now?",
         v=-7, vt="\u22127", words="minus seven", unit="degrees", work="Start at 5 degrees and go down 12: 5 - 12.",
         w=7, wt="7", wwork="The difference between 12 and 5 is 12 - 5."),
    dict(q="What is the probability of exactly two heads in three fair coin flips?", v=0.375, vt="3/8",
         words="three eighths", unit="", work="There are 8 equally likely outcomes; HHT, HTH and THH have "
         "exactly two heads, which is 3 of the 8.", w=0.5, wt="1/2",
         wwork="Two heads out of three flips is like a fair split: 4 of the 8 outcomes."),
    dict(q="A town of 800 thousand people grows to 1.2 million. By how many people did it grow?",
         v=400000, vt="400,000", words="four hundred thousand", unit="people",
         work="The growth is the new size minus the old size: 1,200,000 - 800,000.",
         w=4000000, wt="4,000,000", wwork="Convert: 1.2 million is 12,000,000 (slip), minus 800,000... roughly."),
    dict(q="A recipe needs 7 cups of flour for 2 loaves. How many cups are needed for 1 loaf?", v=3.5, vt="3.5",
         words="three and a half", unit="cups", work="One loaf needs half of the flour for two: 7 / 2.",
         w=14, wt="14", wwork="One loaf needs the flour for two doubled: 7 × 2."),
    dict(q="What percentage of 200 is 50?", v=25, vt="25%", words="twenty-five percent", unit="",
         work="Divide the part by the whole: 50 / 200 = 0.25, and as a percentage that is 0.25 × 100.",
         w=4, wt="4%", wwork="Divide the whole by the part: 200 / 50."),
    dict(q="A farmer has 17 sheep. All but 9 run away. How many sheep does the farmer have left?", v=9, vt="9",
         words="nine", unit="sheep", work="'All but 9 run away' means that 9 stay behind.",
         w=8, wt="8", wwork="17 sheep and 9 run away, so we subtract: 17 - 9."),
    dict(q="What is 2 to the power of 10?", v=1024, vt="1024", words="one thousand twenty-four", unit="",
         work="Doubling ten times: 2, 4, 8, 16, 32, 64, 128, 256, 512, then one more doubling.",
         w=512, wt="512", wwork="Doubling: 2, 4, 8, 16, 32, 64, 128, 256, 512 (nine doublings)."),
    dict(q="How many legs do 3 spiders have in total?", v=24, vt="24", words="twenty-four", unit="legs",
         work="A spider has 8 legs, and there are 3 spiders: 3 × 8.",
         w=18, wt="18", wwork="A spider has 6 legs like an insect, and there are 3 spiders: 3 × 6."),
    dict(q="A tank holds 2,500 litres and is 40% full. How many litres are in it?", v=1000, vt="1,000",
         words="one thousand", unit="litres", work="40% of 2,500 is 0.4 × 2,500.",
         w=1500, wt="1,500", wwork="The empty part is 40%, so the water is 60% of 2,500: 0.6 × 2,500."),
    dict(q="A car uses 6 litres of fuel per 100 km. How many litres does it use for 250 km?", v=15, vt="15",
         words="fifteen", unit="litres", work="250 km is 2.5 times 100 km, so the fuel is 6 × 2.5.",
         w=12, wt="12", wwork="250 km is about 2 times 100 km, so 6 × 2."),
    dict(q="What is the mean of 4, 8, 15 and 21?", v=12, vt="12", words="twelve", unit="",
         work="The sum is 4 + 8 + 15 + 21 = 48, and there are 4 numbers: 48 / 4.",
         w=11.5, wt="11.5", wwork="The middle two values are 8 and 15, and their average is (8 + 15) / 2."),
    dict(q="A population of one million doubles. How many people are there now?", v=2000000, vt="2 million",
         words="two million", unit="people", work="Doubling one million: 1,000,000 × 2.",
         w=1000000, wt="1,000,000", wwork="A population that doubles and loses half stays the same."),
    dict(q="An account earns 5% simple interest per year on $1,000. How much interest is earned in 3 years?",
         v=150, vt="$150", words="one hundred fifty dollars", unit="dollars",
         work="Each year earns 5% of 1,000 = $50, and over 3 years: 50 × 3.",
         w=157.63, wt="$157.63", wwork="Compounding: 1,000 × 1.05³ - 1,000."),
    dict(q="What is the square root of 2, to three decimal places?", v=1.414, vt="1.414", words="", unit="",
         tol=0.001, work="Since 1.41² = 1.9881 and 1.42² = 2.0164, the root lies between 1.41 and 1.42; "
         "refining gives 1.4142...", w=1.412, wt="1.412", wwork="1.41² = 1.9881, so adding a bit: about 1.41 + 0.002."),
]

LATEX = {9: "9", 19: "19", 391: "391", 80: "80", 1275: "1275", 37.4: "37.40", -7: "-7", 0.375: r"\frac{3}{8}",
         400000: "400{,}000", 3.5: r"\frac{7}{2}", 25: r"25\%", 1024: "2^{10}", 24: "24", 1000: "1000", 15: "15",
         12: "12", 2000000: r"2 \times 10^{6}", 150: r"\$150", 1.414: r"\sqrt{2}"}


def numeric_rows() -> None:
    for p in NUMERIC:
        q, v, vt, wt = p["q"], p["v"], p["vt"], p["wt"]
        exp = {"type": "numeric", "value": v}
        if "tol" in p:
            exp["tolerance"] = p["tol"]
        unit = f" {p['unit']}" if p["unit"] else ""
        work, wwork = p["work"], p["wwork"]
        ok = partial(add, "numeric", q, exp, True)
        bad = partial(add, "numeric", q, exp, False)
        # correct styles
        ok("answer_cue_last", f"{work}\n\nAnswer: {vt}")
        ok("answer_first", f"The answer is {vt}{unit}. {work}")
        ok("bold_last", f"{work}\n\n**{vt}**")
        ok("boxed_latex", f"{work}\n\nThe final answer is $\\boxed{{{LATEX.get(v, vt)}}}$.")
        ok("corrected_earlier_attempt", f"{wwork} That gives {wt}. Wait, that is wrong; redoing it: {work}\n\n"
                                         f"Final answer: {vt}")
        ok("heading_final_answer", f"### Working\n{work}\n\n### Final Answer\n{vt}")
        ok("answer_then_check", f"Answer: {vt}\n\nCheck: {work}")
        ok("distractor_after_cue", f"{work} So the answer is {vt}{unit}, not {wt}.")
        if p["words"]:
            ok("spelled_out", f"{work}\n\nSo the answer is {p['words']}{unit}.")
        ok("therefore_last", f"{work}\nTherefore, the result is {vt}{unit}.")
        # wrong styles
        bad("wrong_cue_right_as_distractor", f"One might think it is {vt}, but {wwork}\n\nAnswer: {wt}")
        bad("not_right", f"The answer is not {vt}. {wwork} Answer: {wt}")
        bad("right_then_wrong_correction", f"The answer is {vt}. Hmm, let me redo it. {wwork} "
                                           f"So the final answer is {wt}.")
        bad("boxed_wrong", f"{wwork}\n\n$\\boxed{{{wt.replace('$', '').replace(',', '')}}}$")
        bad("hedge", f"It is either {vt} or {wt}{unit}, depending on how you read it.")
        bad("bold_wrong", f"{wwork}\n\n**{wt}**")
        bad("wrong_first_then_right_as_note", f"Answer: {wt}\n\n(Someone might say {vt}, but that misreads "
                                              f"the question.)")
        bad("truncated", f"{work.split('.')[0]}. Next we")


def zero_rows() -> None:
    q = "David has three sisters. Each of them has one brother. How many brothers does David have?"
    exp = {"type": "numeric", "value": 0}
    for text in [
        "David has no brothers. Each of his three sisters has one brother, and that brother is David himself.",
        "**None.** The one brother each sister has is David.",
        "Zero. The sisters' only brother is David, so David has no brother of his own.",
        "The answer is 0: the brother the three sisters share is David himself.",
        "David has zero brothers — he is the brother each of the three sisters has.",
        "Each sister has one brother, and that brother is David. So David has no brothers.",
        "Answer: none",
        "Final answer: 0",
        "$\\boxed{0}$",
        "He has no brothers at all; the three girls' one brother is David.",
    ]:
        add("numeric", q, exp, True, "zero_words", text)
    for text in [
        "David has one brother. Each of his three sisters has one brother, so there is one boy besides David.",
        "Each sister has one brother, so David has 1 brother.",
        "Answer: 3",
        "The answer is not 0 — he has one brother.",
        "There are three sisters and one brother, so David has **1** brother.",
        "David has three brothers, one for each sister.",
        "No idea without more information; perhaps 1.",
    ]:
        add("numeric", q, exp, False, "zero_words_wrong", text)


# ------------------------------------------------------------------------------------------ choice

CHOICE: list[dict[str, Any]] = [
    dict(q="What is the capital of the United Kingdom? A) Paris B) London C) Rome D) Berlin",
         options={"A": "Paris", "B": "London", "C": "Rome", "D": "Berlin"}, a="B", w="C",
         why="London has been the capital for centuries."),
    dict(q="A heater switches on below 20 C and off above 20 C. What kind of system is this? "
           "A) positive feedback B) negative feedback C) open loop D) exponential growth",
         options={"A": "positive feedback", "B": "negative feedback", "C": "open loop", "D": "exponential growth"},
         a="B", w="A", why="The heater counteracts any deviation from the setpoint."),
    dict(q="Which planet is largest? A) Mars B) Venus C) Jupiter D) Mercury",
         options={"A": "Mars", "B": "Venus", "C": "Jupiter", "D": "Mercury"}, a="C", w="B",
         why="Jupiter's mass is more than twice that of all other planets combined."),
    dict(q="Which gas do plants absorb for photosynthesis? A) oxygen B) nitrogen C) helium D) carbon dioxide",
         options={"A": "oxygen", "B": "nitrogen", "C": "helium", "D": "carbon dioxide"}, a="D", w="A",
         why="Plants take in carbon dioxide and release oxygen."),
    dict(q="Which letter comes next: A, C, F, J, O, ...? A) S B) T C) U D) V",
         options={"A": "S", "B": "T", "C": "U", "D": "V"}, a="C", w="B",
         why="The gaps grow by one each time (2, 3, 4, 5), so the next gap is 6 and O + 6 is U."),
]


def choice_rows() -> None:
    for p in CHOICE:
        q, opts, a, w, why = p["q"], p["options"], p["a"], p["w"], p["why"]
        exp = {"type": "choice", "answer": a, "options": opts}
        at, wt = opts[a], opts[w]
        others = [k for k in opts if k not in (a,)]
        trace = " ".join(f"Option {k} ({opts[k]}) does not fit." for k in others if k != w)
        ok = partial(add, "choice", q, exp, True)
        bad = partial(add, "choice", q, exp, False)
        ok("answer_cue_letter", f"{why}\n\nAnswer: {a}")
        ok("answer_is_paren", f"The answer is ({a}) {at}. {why}")
        ok("bold_letter", f"{why}\n\n**{a}**")
        ok("boxed", f"{why} $\\boxed{{{a}}}$")
        ok("option_text_only", f"The correct option is {at}." if len(at) > 2 else f"The correct option is {a}.")
        ok("trace_all_options", f"Let us check each option. {trace} Option {w} ({wt}) is tempting but wrong. "
                                f"Option {a} ({at}) fits. So the answer is {a}.")
        ok("letter_paren_first", f"{a}) {at}\n\n{why}")
        ok("corrected", f"At first I thought {w}, but {why.lower()} Final answer: {a}")
        ok("not_wrong_but_right", f"It is not {w}; the answer is {a}.")
        ok("final_line_letter_only", f"{why}\n{a}")
        bad("wrong_cue", f"{why}\n\nAnswer: {w}")
        bad("right_distractor", f"Option {a} ({at}) looks plausible, but I will go with {w}.\n\nAnswer: {w}")
        bad("not_right", f"The answer is not {a}. It is {w}.")
        bad("hedge", f"It is either {a} or {w}.")
        bad("right_then_corrected_wrong", f"The answer is {a}. Actually, on reflection, the answer is {w}.")
        bad("wrong_bold", f"**{w}** {wt if len(wt) > 2 else ''}")
        bad("trace_wrong_conclusion", f"Option {a} ({at}) seems wrong here. {trace} So the answer is {w}.")
        bad("truncated", "Let us look at each option in turn. First,")


LIST_CHOICE: list[dict[str, Any]] = [
    dict(q="Today is Christmas Eve of 1937. What is the date tomorrow in MM/DD/YYYY?",
         options=["12/11/1937", "12/25/1937", "01/04/1938", "12/04/1937", "12/25/2006", "07/25/1937"],
         a="12/25/1937", w="12/04/1937"),
    dict(q="Alice has The Odyssey, Bob has Frankenstein, Claire has Ulysses. Alice and Bob swap books, "
           "then Bob and Claire swap. Which book does Alice have at the end?",
         options=["The Odyssey", "Frankenstein", "Ulysses"], a="Frankenstein", w="Ulysses"),
    dict(q="Which word is the odd one out: apple, banana, carrot, cherry?",
         options=["apple", "banana", "carrot", "cherry"], a="carrot", w="banana"),
    dict(q="What colour do you get by mixing blue and yellow paint?",
         options=["green", "purple", "orange", "brown"], a="green", w="brown"),
]


def list_choice_rows() -> None:
    for p in LIST_CHOICE:
        q, opts, a, w = p["q"], p["options"], p["a"], p["w"]
        exp = {"type": "choice", "answer": a, "options": opts}
        ok = partial(add, "choice", q, exp, True)
        bad = partial(add, "choice", q, exp, False)
        ok("list_whole", a)
        ok("list_answer_cue", f"Answer: {a}")
        ok("list_not_other", f"The answer is {a} (not {w}).")
        ok("list_sentence", f"It is {a}.")
        ok("list_trace", " ".join(f"It cannot be {o}." for o in opts if o not in (a,)) + f" So it is {a}.")
        ok("list_bold", f"After thinking it through, the answer is clearly **{a}**.")
        bad("list_wrong", f"Answer: {w}")
        bad("list_not_right", f"It is not {a}; it is {w}.")
        bad("list_hedge", f"Either {a} or {w}.")
        bad("list_wrong_trace", f"{a} looks likely at first, but it cannot be {a}. So it is {w}.")


# ----------------------------------------------------------------------------------------- boolean

BOOLEAN: list[dict[str, Any]] = [
    dict(q="If you face north, take 2 steps, turn around and take 2 steps, do you return to the start? "
           "Answer true or false.", v=True, why="you turn around, walk 2 steps back and end where you began"),
    dict(q="Is 91 a prime number?", v=False, why="91 = 7 × 13"),
    dict(q="True or false: every square is a rectangle.", v=True,
         why="a square has four right angles, which is all a rectangle needs"),
    dict(q="Does the sum of two odd numbers always give an odd number?", v=False,
         why="odd plus odd is always even, e.g. 3 + 5 = 8"),
    dict(q="Is the statement 'all birds can fly' correct?", v=False, why="penguins and ostriches cannot fly"),
    dict(q="Is 2 to the power 10 greater than 1000?", v=True, why="2^10 = 1024, which is more than 1000"),
]


def boolean_rows() -> None:
    for p in BOOLEAN:
        q, v, why = p["q"], p["v"], p["why"]
        exp = {"type": "boolean", "value": v}
        yes, no = ("Yes", "No") if v else ("No", "Yes")
        tru, fal = ("True", "False") if v else ("False", "True")
        cor = "correct" if v else "incorrect"
        ok = partial(add, "boolean", q, exp, True)
        bad = partial(add, "boolean", q, exp, False)
        ok("leading_true", f"{tru} — {why}.")
        ok("leading_yes", f"{yes}, because {why}.")
        ok("answer_cue", f"Since {why}, the answer is {yes.lower()}.\n\nAnswer: {yes}")
        ok("statement_is", f"Consider this: {why}. So the statement in the question is {tru.lower()}.")
        ok("bold", f"{why.capitalize()}.\n\n**{tru}**")
        ok("boxed", f"{why.capitalize()}. $\\boxed{{\\text{{{yes}}}}}$")
        ok("correct_word", f"The claim is {cor}: {why}.")
        bad("leading_wrong", f"{fal} — at first sight it seems so.")
        bad("cue_wrong", f"Answer: {no}")
        bad("flip_flop", f"{yes}. Wait, no. So the statement is {fal.lower()}.")
        bad("not_right", f"It is not {tru.lower()}.")
        bad("hedge", f"It could be {tru.lower()} or {fal.lower()}; it depends.")


# -------------------------------------------------------------------------------------- exact/any_of

EXACT: list[dict[str, Any]] = [
    dict(q="What is the capital of Australia?", v="Canberra", w="Sydney", aliases=["Canberra"]),
    dict(q="Who wrote 'Pride and Prejudice'?", v="Jane Austen", w="Charlotte Bronte",
         aliases=["Jane Austen", "Austen"]),
    dict(q="What is the chemical symbol for gold?", v="Au", w="Ag", aliases=["Au"]),
    dict(q="Which ocean is the largest?", v="Pacific Ocean", w="Atlantic Ocean",
         aliases=["Pacific Ocean", "the Pacific"]),
]


def exact_rows() -> None:
    for p in EXACT:
        q, v, w = p["q"], p["v"], p["w"]
        for exp in ({"type": "exact", "value": v}, {"type": "any_of", "values": p["aliases"]}):
            ok = partial(add, exp["type"], q, exp, True)
            bad = partial(add, exp["type"], q, exp, False)
            ok("whole", v)
            ok("sentence", f"The answer is {v}.")
            ok("bold", f"It is **{v}**, as most references confirm.")
            ok("not_other", f"Answer: {v} (not {w})")
            ok("conclusion", f"Many people guess {w}. However, that is a common mistake.\nSo the answer is {v}.")
            bad("wrong", f"Answer: {w}")
            bad("not_right", f"It is {w}, not {v}.")
            bad("hedge", f"{v} or {w}.")


# ------------------------------------------------------------------------------------------ python

ADD_TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(0, 0) == 0\n"
GOOD_ADD = "def add(a, b):\n    return a + b\n"
BAD_ADD = "def add(a, b):\n    return a - b\n"
CLOSE_TESTS = ("def check(candidate):\n    assert candidate([1.0, 2.0, 3.0], 0.5) is False\n"
               "    assert candidate([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) is True\n"
               "    assert candidate([1.0, 2.0, 1.05], 0.1) is True\n    assert candidate([], 1.0) is False\n")
CLOSE_SETUP = ("from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
               '    """Whether any two numbers are closer to each other than threshold."""\n')
GOOD_CLOSE = ("def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
              "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n"
              "            if abs(a - b) < threshold:\n                return True\n    return False\n")
BAD_CLOSE = ("def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
             "    for i in range(len(numbers) - 1):\n        if abs(numbers[i] - numbers[i + 1]) < threshold:\n"
             "            return True\n    return False\n")
SHIFT_SETUP = ('def encode_shift(s: str) -> str:\n    return "".join(chr((ord(c) + 5 - 97) % 26 + 97) for c in s)\n')
SHIFT_TESTS = "assert decode_shift(encode_shift('hello')) == 'hello'\nassert decode_shift('mjqqt') == 'hello'\n"
GOOD_SHIFT = 'def decode_shift(s: str) -> str:\n    return "".join(chr((ord(c) - 5 - 97) % 26 + 97) for c in s)\n'
BAD_SHIFT = 'def decode_shift(s: str) -> str:\n    return "".join(chr((ord(c) - 5) % 26 + 97) for c in s)\n'
FIZZ_TESTS = ("assert fizz(3) == 'Fizz'\nassert fizz(5) == 'Buzz'\nassert fizz(15) == 'FizzBuzz'\n"
              "assert fizz(7) == '7'\n")
GOOD_FIZZ = ("def fizz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n"
             "    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n")
BAD_FIZZ = ("def fizz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n"
            "    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)\n")

PYTHON = [
    (dict(type="python", function="add", tests=ADD_TESTS), "Write add(a, b) that returns the sum.", GOOD_ADD, BAD_ADD),
    (dict(type="python", entry_point="has_close_elements", setup=CLOSE_SETUP, tests=CLOSE_TESTS),
     "Complete has_close_elements.", GOOD_CLOSE, BAD_CLOSE),
    (dict(type="python", function="decode_shift", setup=SHIFT_SETUP, tests=SHIFT_TESTS),
     "Write decode_shift, the inverse of encode_shift.", GOOD_SHIFT, BAD_SHIFT),
    (dict(type="python", function="fizz", tests=FIZZ_TESTS), "Write fizz(n) (FizzBuzz for one number).",
     GOOD_FIZZ, BAD_FIZZ),
]


def python_rows() -> None:
    for exp, q, good, bad_code in PYTHON:
        name = exp.get("function") or exp.get("entry_point")
        for code, label in ((good, True), (bad_code, False)):
            styles = {
                "fenced": f"Here is the function:\n\n```python\n{code}```\n",
                "unfenced_after_prose": f"Here is a simple implementation.\n\n{code}\nIt runs in linear time.",
                "stray_closing_fence": f"{code}```\n",
                "bare_code": code,
                "usage_block_first": f"Usage:\n```python\nprint({name})\n```\nImplementation:\n```python\n{code}```",
                "two_versions_last_defines": f"A first try:\n```python\ndef {name}(*args):\n    raise "
                                             f"NotImplementedError\n```\nThe full version:\n```python\n{code}```",
                "unlabelled_fence": f"```\n{code}```",
                "tilde_fence_with_text_after": f"~~~python\n{code}~~~\nThat's it: the function above is all you need.",
            }
            for style, text in styles.items():
                add("python", q, exp, label, style if label else f"{style}_buggy", text)
        add("python", q, exp, False, "prose_only", f"You can write {name} with a loop over the input.")
        add("python", q, exp, False, "other_function", "```python\ndef helper(x):\n    return x\n```")


def main() -> None:
    numeric_rows()
    zero_rows()
    choice_rows()
    list_choice_rows()
    boolean_rows()
    exact_rows()
    python_rows()
    with OUT.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    wrong = sum(not r["correct"] for r in rows)
    print(f"wrote {len(rows)} rows ({wrong} wrong) to {OUT}")


if __name__ == "__main__":
    main()
