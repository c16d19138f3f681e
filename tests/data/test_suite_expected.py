"""The reasoning-100 suite: its shape, and every expected answer checked independently.

Numeric answers are recomputed here; puzzle answers (truth values, names, option letters) are derived by
brute force over all possible worlds; every programming challenge's reference solution must pass its tests,
and both a do-nothing stub and a plausible near-miss implementation must fail them.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from harness.data.cases import Case, is_dataset_file, load_datasets
from harness.data.expected import ExpectAnyOf, ExpectChoice, ExpectExact, ExpectNumeric, ExpectPython
from harness.metrics.checks import mention_checks
from tests.paths import REPO

SUITE_PATH = REPO / "suites" / "reasoning-100.yaml"

CATEGORY_COUNTS = {
    "analytical": 10,
    "mathematical": 15,
    "logical": 15,
    "ethical": 10,
    "creative": 15,
    "programming": 15,
    "strategic": 10,
    "scientific": 10,
}
OBJECTIVE = {"analytical", "mathematical", "logical", "programming"}
ID_PREFIX = {
    "analytical": "ana",
    "mathematical": "mat",
    "logical": "log",
    "ethical": "eth",
    "creative": "cre",
    "programming": "prg",
    "strategic": "str",
    "scientific": "sci",
}

_DATASETS = load_datasets(SUITE_PATH)
CASES: list[Case] = [c for d in _DATASETS for c in d.cases]
BY_ID = {c.id: c for c in CASES}


def _ids(kind: type) -> list[str]:
    return [c.id for c in CASES if isinstance(c.expected, kind)]


# --------------------------------------------------------------------------- numeric answers, recomputed


def _fib(n: int) -> int:
    a, b = 1, 1  # terms 1 and 2 of 1, 1, 2, 3, ...
    for _ in range(n - 1):
        a, b = b, a + b
    return a


NUMERIC: dict[str, Callable[[], float]] = {
    "ana-001": lambda: 6 * 7,  # n(n+1) at n = 6
    "ana-002": lambda: sorted([12, 15, 9, 15, 19])[2],
    "ana-005": lambda: 40 * (32 / 40) ** 3,
    "ana-007": lambda: 45 * 3 * 2,
    "ana-008": lambda: _fib(12),
    "ana-009": lambda: 200 - (120 + 90 - 40),
    "ana-010": lambda: 400 * 80 / 50,
    "mat-001": lambda: (25 - 7) / 3,
    "mat-002": lambda: 17 * 23,
    "mat-003": lambda: 11 * (36 / 2 - 11),
    "mat-004": lambda: sum(range(1, 51)),
    "mat-005": lambda: max(x for x in range(-100, 101) if x * x - 5 * x + 6 == 0),
    "mat-006": lambda: 40 * (1 - 0.15) * (1 + 0.10),
    "mat-007": lambda: sum(2 * k - 1 for k in range(1, 13)),
    "mat-008": lambda: math.comb(8, 3),
    "mat-009": lambda: sum(1 for flips in itertools.product("HT", repeat=3) if flips.count("H") == 2) / 8,
    "mat-010": lambda: math.gcd(84, 126),
    "mat-011": lambda: ((10 + 4) / 2) * ((10 - 4) / 2),
    "mat-012": lambda: float(Fraction(120 * 1, 120 - 80)),  # 80 t = 120 (t - 1)
    "mat-013": lambda: 1000 * 1.05**3,
    "mat-015": lambda: sum(1 for a, b in itertools.combinations(range(10), 2) if (b - a) % 10 not in (1, 9)),
}


# --------------------------------------------------------------------------- puzzle answers, brute-forced


def _entails(n_vars: int, premises: Callable[..., bool], conclusion: Callable[..., bool]) -> bool:
    """True if ``conclusion`` holds in every truth assignment where ``premises`` holds."""
    worlds = [w for w in itertools.product([False, True], repeat=n_vars) if premises(*w)]
    assert worlds, "the premises are contradictory"
    return all(conclusion(*w) for w in worlds)


def _syllogism(premises: Callable[..., bool], conclusion: Callable[..., bool], size: int = 3) -> bool:
    """True if ``conclusion`` holds in every model (three predicates over ``size`` individuals) of ``premises``.

    Each predicate is a frozenset of individuals; both callables receive the three sets.
    """
    subsets = [frozenset(s) for r in range(size + 1) for s in itertools.combinations(range(size), r)]
    models = [m for m in itertools.product(subsets, repeat=3) if premises(*m)]
    assert models, "the premises are contradictory"
    return all(conclusion(*m) for m in models)


def _decide(n_vars: int, premises: Callable[..., bool], query: Callable[..., bool]) -> bool:
    """Whether ``query`` follows from ``premises`` (True) or its negation does (False); fails if undecided."""
    if _entails(n_vars, premises, query):
        return True
    assert _entails(n_vars, premises, lambda *w: not query(*w)), "the premises do not decide the question"
    return False


def _tf(value: bool) -> str:
    return "true" if value else "false"


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _unique(solutions: list[str]) -> str:
    assert len(solutions) == 1, f"the puzzle must have exactly one solution, found {solutions}"
    return solutions[0]


def _letter_for(case_id: str, text: str) -> str:
    exp = BY_ID[case_id].expected
    assert isinstance(exp, ExpectChoice)
    return _unique([k for k, v in exp.options.items() if v == text])


def _ana_004() -> str:
    letters = [ord(c) - ord("A") for c in "ACFJO"]
    gaps = [b - a for a, b in itertools.pairwise(letters)]
    assert all(g2 - g1 == 1 for g1, g2 in itertools.pairwise(gaps))
    return _letter_for("ana-004", chr(ord("A") + letters[-1] + gaps[-1] + 1))


def _ana_006() -> str:
    revenue = {"North": 120 * 5, "South": 80 * 8, "East": 150 * 4}
    best = max(revenue.values())
    return _unique([name for name, r in revenue.items() if r == best])


def _log_003() -> str:
    solutions = []
    for ava, ben in itertools.product([True, False], repeat=2):  # True = knight
        says_ava = not ben
        says_ben = ava and ben
        if says_ava == ava and says_ben == ben and (ava + ben) == 1:
            solutions.append("Ava" if ava else "Ben")
    return _unique(solutions)


def _log_006() -> str:
    names = ["Ana", "Ben", "Cal", "Dee", "Eve"]
    firsts = []
    for order in itertools.permutations(names):
        pos = {name: i for i, name in enumerate(order)}
        if (
            pos["Ana"] < pos["Ben"]
            and pos["Dee"] < pos["Cal"] < pos["Ana"]
            and pos["Eve"] == 4
            and pos["Ben"] == pos["Ana"] + 1
        ):
            firsts.append(order[0])
    return _unique(firsts)


def _log_010() -> str:
    dog_owners = []
    for pets in itertools.permutations(["cat", "dog", "fish"]):
        owner = dict(zip(["Kim", "Lee", "Max"], pets, strict=True))
        if owner["Kim"] not in ("cat", "dog") and owner["Lee"] != "dog":
            dog_owners.append(next(name for name, pet in owner.items() if pet == "dog"))
    return _unique(dog_owners)


def _log_013() -> str:
    false_rows = sum(1 for a, b, c in itertools.product([False, True], repeat=3) if not ((not (a and b)) or c))
    return _letter_for("log-013", str(false_rows))


def _log_014() -> str:
    places = []
    for key in ("drawer", "box", "shelf"):
        statements = [key == "drawer", key != "box", key != "drawer"]
        if sum(statements) == 1:
            places.append(key)
    return _unique(places)


def _log_015() -> str:
    def implies(p: bool, q: bool) -> bool:
        return (not p) or q

    original = implies
    options: dict[str, Callable[[bool, bool], bool]] = {
        "A": lambda p, q: implies(q, p),
        "B": lambda p, q: implies(not p, not q),
        "C": lambda p, q: p and q,
        "D": lambda p, q: implies(not q, not p),
    }
    rows = list(itertools.product([False, True], repeat=2))
    return _unique([k for k, f in options.items() if all(f(p, q) == original(p, q) for p, q in rows)])


DERIVED: dict[str, Callable[[], str]] = {
    "ana-004": _ana_004,
    "ana-006": _ana_006,
    "mat-014": lambda: "even" if (37 + 59) % 2 == 0 else "odd",
    # all bloops (B) are razzies (R), all razzies are lazzies (L) |= all B are L
    "log-001": lambda: _tf(_syllogism(lambda b, r, lz: b <= r and r <= lz, lambda b, r, lz: b <= lz)),
    # some cats (C) are black (K), some black things are cars (R) |= some C are R ?
    "log-002": lambda: _tf(_syllogism(lambda c, k, r: bool(c & k) and bool(k & r), lambda c, k, r: bool(c & r))),
    "log-003": _log_003,
    "log-005": lambda: _tf(((not True) or False) or (not False)),
    "log-006": _log_006,
    # (L or F), not L |= F
    "log-008": lambda: _tf(_decide(2, lambda lt, fan: (lt or fan) and not lt, lambda lt, fan: fan)),
    # (S -> R), not R: was S the case?
    "log-009": lambda: _yes_no(_decide(2, lambda s, r: ((not s) or r) and not r, lambda s, r: s)),
    "log-010": _log_010,
    # no reptiles (R) have fur (F), all snakes (S) are reptiles: can some snake have fur?
    "log-012": lambda: _yes_no(not _syllogism(lambda r, f, s: not (r & f) and s <= r, lambda r, f, s: not (s & f))),
    "log-013": _log_013,
    "log-014": _log_014,
    "log-015": _log_015,
}

#: choice challenges whose answer is a judgement about a named form (fallacy, feedback type), not computable
JUDGED_CHOICES = {"ana-003", "log-004", "log-007", "log-011"}


# --------------------------------------------------------------------------- shape of the suite


def test_suite_is_one_dataset_of_exactly_100_challenges() -> None:
    assert is_dataset_file(SUITE_PATH)
    assert [d.kind for d in _DATASETS] == ["suite"]
    assert _DATASETS[0].name == "reasoning-100"
    assert len(CASES) == 100


def test_per_category_counts() -> None:
    assert dict(Counter(c.category for c in CASES)) == CATEGORY_COUNTS
    assert sum(CATEGORY_COUNTS.values()) == 100


def test_ids_are_unique_and_prefixed_by_category() -> None:
    assert len(BY_ID) == 100
    for case in CASES:
        assert case.category is not None
        assert re.fullmatch(rf"{ID_PREFIX[case.category]}-\d{{3}}", case.id), case.id
    for category, count in CATEGORY_COUNTS.items():
        numbers = sorted(int(c.id[4:]) for c in CASES if c.category == category)
        assert numbers == list(range(1, count + 1)), category


def test_objective_challenges_have_an_expected_block_and_ask_for_a_final_answer() -> None:
    for case in CASES:
        if case.category not in OBJECTIVE:
            continue
        assert case.expected is not None, f"{case.id}: objective challenge without 'expected'"
        if case.category == "programming":
            assert isinstance(case.expected, ExpectPython), case.id
        else:
            assert not isinstance(case.expected, ExpectPython), case.id
            assert "'Answer:" in case.query, f"{case.id}: the query must ask for an 'Answer: ...' line"


def test_subjective_challenges_have_ground_truth_and_rubric() -> None:
    for case in CASES:
        if case.category in OBJECTIVE:
            continue
        assert case.expected is None, case.id
        assert case.ground_truth, case.id
        assert len(case.rubric) >= 2, case.id
        assert math.isclose(sum(r.weight for r in case.rubric), 1.0, abs_tol=1e-9), case.id
    for case in CASES:
        if case.category == "scientific":
            assert case.required_mentions, f"{case.id}: scientific challenges name a key fact"


def test_every_challenge_has_a_ground_truth_that_passes_its_own_mention_checks() -> None:
    for case in CASES:
        assert case.ground_truth, case.id
        for mention in case.required_mentions:
            assert " " not in mention, f"{case.id}: required mention {mention!r} should be one word"
        result = mention_checks(case, case.ground_truth)
        failed = [c.target for c in result.checks if not c.passed]
        assert failed == [], f"{case.id}: the ground truth fails its own mention checks {failed}"


def test_suite_only_gates_on_required_mentions() -> None:
    for case in CASES:
        assert set(case.minimum_scores) <= {"required_mentions"}, case.id


# --------------------------------------------------------------------------- expected answers, verified


def test_every_objective_answer_has_an_independent_check() -> None:
    numeric = set(_ids(ExpectNumeric))
    assert set(NUMERIC) == numeric
    others = {c.id for c in CASES if isinstance(c.expected, ExpectExact | ExpectAnyOf | ExpectChoice)}
    assert set(DERIVED) | JUDGED_CHOICES == others
    assert not set(DERIVED) & JUDGED_CHOICES
    assert all(isinstance(BY_ID[i].expected, ExpectChoice) for i in JUDGED_CHOICES)


@pytest.mark.parametrize("case_id", _ids(ExpectNumeric))
def test_numeric_answer_recomputed(case_id: str) -> None:
    exp = BY_ID[case_id].expected
    assert isinstance(exp, ExpectNumeric)
    computed = float(NUMERIC[case_id]())
    allowed = max(exp.tolerance, exp.rel_tolerance * abs(computed))
    assert abs(exp.value - computed) <= allowed, f"{case_id}: YAML says {exp.value}, computed {computed}"
    assert allowed <= 0.01 * max(1.0, abs(computed)), f"{case_id}: tolerance {allowed} is too loose"
    numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", BY_ID[case_id].ground_truth or "")]
    assert any(abs(x - computed) <= allowed for x in numbers), f"{case_id}: ground truth lacks the answer"


@pytest.mark.parametrize("case_id", sorted(DERIVED))
def test_derived_answer_matches(case_id: str) -> None:
    exp = BY_ID[case_id].expected
    derived = DERIVED[case_id]()
    if isinstance(exp, ExpectExact):
        assert exp.value.casefold() == derived.casefold()
    elif isinstance(exp, ExpectAnyOf):
        assert derived.casefold() in [v.casefold() for v in exp.values]
    elif isinstance(exp, ExpectChoice):
        assert exp.answer == derived
    else:  # pragma: no cover - guarded by test_every_objective_answer_has_an_independent_check
        pytest.fail(f"{case_id}: unexpected expected type {type(exp).__name__}")


@pytest.mark.parametrize("case_id", _ids(ExpectChoice))
def test_choice_answer_is_a_listed_option(case_id: str) -> None:
    case = BY_ID[case_id]
    exp = case.expected
    assert isinstance(exp, ExpectChoice)
    assert sorted(exp.options) == ["A", "B", "C", "D"]
    assert exp.answer in exp.options
    assert len(set(exp.options.values())) == 4, "options must differ"
    for letter, text in exp.options.items():
        assert f"{letter}) {text}" in case.query, f"{case_id}: option {letter} is not shown in the query"


# --------------------------------------------------------------------------- programming challenges, executed

#: a plausible but wrong implementation per challenge; the tests must catch each one
NEAR_MISS: dict[str, str] = {
    "prg-001": """
        def is_palindrome(s):  # forgets to ignore case and punctuation
            return s == s[::-1]
    """,
    "prg-002": """
        def fizzbuzz(n):  # checks 3 and 5 before 15
            out = []
            for i in range(1, n + 1):
                if i % 3 == 0:
                    out.append("Fizz")
                elif i % 5 == 0:
                    out.append("Buzz")
                elif i % 15 == 0:
                    out.append("FizzBuzz")
                else:
                    out.append(str(i))
            return out
    """,
    "prg-003": """
        def binary_search(items, target):  # correct answers, but a linear scan
            for i in range(len(items)):
                if items[i] == target:
                    return i
            return -1
    """,
    "prg-004": """
        def merge_intervals(intervals):  # forgets to sort first
            merged = []
            for start, end in intervals:
                if merged and start <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], end))
                else:
                    merged.append((start, end))
            return merged
    """,
    "prg-005": """
        def second_largest(nums):  # ignores duplicates
            return sorted(nums)[-2] if len(nums) >= 2 else None
    """,
    "prg-006": """
        def count_vowels(s):  # lower case only
            return sum(1 for c in s if c in "aeiou")
    """,
    "prg-007": """
        def flatten(nested):  # one level only
            out = []
            for item in nested:
                if isinstance(item, list):
                    out.extend(item)
                else:
                    out.append(item)
            return out
    """,
    "prg-008": """
        def rle_encode(s):  # drops the last run
            out, run = [], 1
            for a, b in zip(s, s[1:]):
                if a == b:
                    run += 1
                else:
                    out.append(f"{a}{run}")
                    run = 1
            return "".join(out)
    """,
    "prg-009": """
        def is_balanced(s):  # counts each bracket kind but ignores nesting
            for o, c in ("()", "[]", "{}"):
                depth = 0
                for ch in s:
                    depth += (ch == o) - (ch == c)
                    if depth < 0:
                        return False
                if depth:
                    return False
            return True
    """,
    "prg-010": """
        def two_sum(nums, target):  # may pair an element with itself
            for i in range(len(nums)):
                for j in range(i, len(nums)):
                    if nums[i] + nums[j] == target:
                        return (i, j)
            return None
    """,
    "prg-011": """
        def word_frequencies(text):  # splits on whitespace only
            counts = {}
            for word in text.lower().split():
                counts[word] = counts.get(word, 0) + 1
            return counts
    """,
    "prg-012": """
        def rotate_matrix(m):  # transposes instead of rotating
            return [list(row) for row in zip(*m)]
    """,
    "prg-013": """
        def nth_prime(n):  # counts 1 as a prime
            if n < 1:
                raise ValueError(n)
            count, candidate = 0, 0
            while True:
                candidate += 1
                if all(candidate % d for d in range(2, int(candidate ** 0.5) + 1)):
                    count += 1
                    if count == n:
                        return candidate
    """,
    "prg-014": """
        def fib(n):  # off by one: starts at 1, 1
            if n < 0:
                raise ValueError(n)
            a, b = 1, 1
            for _ in range(n):
                a, b = b, a + b
            return a
    """,
    "prg-015": """
        def longest_common_prefix(words):  # compares only the first two words
            if not words:
                return ""
            if len(words) == 1:
                return words[0]
            prefix = ""
            for a, b in zip(words[0], words[1]):
                if a != b:
                    break
                prefix += a
            return prefix
    """,
}

_RUNNER = """
import json, signal, sys

def _alarm(signum, frame):
    raise TimeoutError("time limit exceeded")

signal.signal(signal.SIGALRM, _alarm)
with open(sys.argv[1], encoding="utf-8") as fh:
    jobs = json.load(fh)
results = {}
for job in jobs:
    signal.setitimer(signal.ITIMER_REAL, job["limit"])
    try:
        exec(compile(job["source"], job["key"], "exec"), {"__name__": "__challenge__"})
        results[job["key"]] = "ok"
    except BaseException as exc:
        results[job["key"]] = f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
print(json.dumps(results))
"""

PYTHON_IDS = _ids(ExpectPython)


def _stub(function: str) -> str:
    return f"def {function}(*args, **kwargs):\n    return None\n"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Run every reference, stub and near miss against its challenge's tests in ONE subprocess.

    Returns ``"<kind>:<id>" -> "ok" | "<ExceptionName>: message"`` for kind in reference, stub, near_miss.
    """
    jobs = []
    for case_id in PYTHON_IDS:
        exp = BY_ID[case_id].expected
        assert isinstance(exp, ExpectPython) and exp.function and exp.reference
        candidates = {
            "reference": exp.reference,
            "stub": _stub(exp.function),
            "near_miss": textwrap.dedent(NEAR_MISS[case_id]),
        }
        for kind, code in candidates.items():
            jobs.append({"key": f"{kind}:{case_id}", "source": code + "\n\n" + exp.tests, "limit": exp.timeout_s})
    work = tmp_path_factory.mktemp("suite_python")
    (work / "runner.py").write_text(_RUNNER, encoding="utf-8")
    (work / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-I", str(work / "runner.py"), str(work / "jobs.json")],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    results: dict[str, str] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) == 3 * len(PYTHON_IDS)
    return results


def test_every_programming_challenge_has_a_near_miss() -> None:
    assert set(NEAR_MISS) == set(PYTHON_IDS)
    assert len(PYTHON_IDS) == 15


@pytest.mark.parametrize("case_id", PYTHON_IDS)
def test_python_challenge_is_well_formed(case_id: str) -> None:
    case = BY_ID[case_id]
    exp = case.expected
    assert isinstance(exp, ExpectPython)
    assert exp.function and exp.reference
    assert f"def {exp.function}(" in exp.reference
    assert f"{exp.function}(" in exp.tests
    assert exp.function in case.query
    assert exp.tests.count("assert") >= 5, "each challenge needs several tests, edge cases included"
    compile(exp.tests, case_id, "exec")


@pytest.mark.parametrize("case_id", PYTHON_IDS)
def test_reference_passes_its_tests(case_id: str, executed: dict[str, str]) -> None:
    assert executed[f"reference:{case_id}"] == "ok"


@pytest.mark.parametrize("case_id", PYTHON_IDS)
def test_stub_fails_the_tests(case_id: str, executed: dict[str, str]) -> None:
    assert executed[f"stub:{case_id}"] != "ok"


@pytest.mark.parametrize("case_id", PYTHON_IDS)
def test_near_miss_fails_the_tests(case_id: str, executed: dict[str, str]) -> None:
    outcome = executed[f"near_miss:{case_id}"]
    assert outcome != "ok"
    assert not outcome.startswith("SyntaxError"), outcome
