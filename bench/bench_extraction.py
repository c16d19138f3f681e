"""Benchmark: objective-answer extraction on the labelled corpus, and its cost on hostile answers.

The corpus (``tests/fixtures/extraction_corpus.jsonl`` from ``make_extraction_corpus.py``, the
hand-written ``extraction_corpus_hand.yaml`` and the held-out ``extraction_corpus_holdout.yaml``)
holds (expected block, answer, truly correct?) triples. Each answer goes through
:func:`harness.metrics.correctness.check_expected` with its question, exactly as a run scores it. Per expected type:

* precision = answers scored correct that are truly correct / answers scored correct;
* recall = truly correct answers scored correct / truly correct answers;
* ambiguous = answers the checker called ``ambiguous`` (never scored correct).

Hostile inputs: a 128 KB and a 1 MB answer of ``"but "`` repeated (and of "answer: " repeated, of
unclosed fences, of "if you ", "but 7 " and "Member A: 5. ") are scored for every type; the figure is
the time per case and the ratio is 1 MB time / 128 KB time (near 1 because answers are capped; a
linear extractor without the cap would show 8, a quadratic one 64).

Run: ``python bench/run.py --only extraction``.

The dev halves of the two blind corpora (``extraction_corpus_blind_dev.yaml``, issue 26, and
``extraction_corpus_blind2_dev.yaml``) are scored apart, each with its first score (at commits
81a3235 and bc1e952, before any rule was changed for it) beside each figure.

Any other labelled corpus file (a YAML list or JSON lines of ``{id, query?, expected, answer,
correct}``) is scored once, with the same figures per type and the verdict counts, by
``python -m bench.bench_extraction --corpus PATH`` (``--misses`` also lists every answer scored
against its label, ``--json OUT`` writes the figures), with the same figures again for the answers
that followed the answer-format instruction and for those that did not (:func:`by_format`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from bench import BenchResult, BenchRow, ratio, timed
from harness.data.expected import Expected
from harness.metrics.correctness import check_expected
from harness.metrics.declared import follows_format
from harness.metrics.thinking import visible_reply

DATA = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
CORPUS = DATA / "extraction_corpus.jsonl"
HAND = DATA / "extraction_corpus_hand.yaml"
HOLDOUT = DATA / "extraction_corpus_holdout.yaml"
#: The dev half of the blind corpus (issue 26), scored apart from the corpus above.
BLIND_DEV = DATA / "extraction_corpus_blind_dev.yaml"
#: Its first score, once, with the extractor as it was before issue 26 (commit 81a3235): per type
#: (n, truly correct, precision, recall); see docs/extraction.md.
BLIND_DEV_FIRST = {
    "numeric": (92, 51, 1.000, 0.804),
    "choice": (54, 28, 0.926, 0.893),
    "boolean": (29, 16, 1.000, 0.750),
    "exact": (15, 7, 1.000, 1.000),
    "any_of": (18, 10, 0.833, 1.000),
    "regex": (17, 10, 0.909, 1.000),
    "python": (29, 15, 1.000, 1.000),
    "all": (254, 137, 0.960, 0.876),
}
#: The dev half of the second blind corpus (written for issue 26's follow-up by someone who had not read
#: the extractor; its holdout half, spent after its single final score, is a regression set beside it).
BLIND2_DEV = DATA / "extraction_corpus_blind2_dev.yaml"
#: Its first score, taken by the lead with the extractor as it was (commit bc1e952), before any rule
#: was changed for it: per type (n, truly correct, precision, recall).
BLIND2_DEV_FIRST = {
    "any_of": (19, 10, 1.000, 1.000),
    "boolean": (32, 16, 0.941, 1.000),
    "choice": (56, 28, 0.903, 1.000),
    "exact": (20, 10, 1.000, 1.000),
    "numeric": (104, 53, 0.980, 0.925),
    "python": (28, 14, 1.000, 1.000),
    "regex": (20, 10, 1.000, 1.000),
    "all": (279, 141, 0.965, 0.972),
}
_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def load_corpus_file(path: Path) -> list[dict[str, Any]]:
    """The labelled rows of one corpus file: a YAML list, or JSON lines (``.jsonl``)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    rows = yaml.safe_load(text)
    if isinstance(rows, dict):  # a mapping with the rows under one key (``cases:``, ``answers:``, ...)
        lists = [v for v in rows.values() if isinstance(v, list)]
        rows = lists[0] if len(lists) == 1 else None
    if not isinstance(rows, list):
        raise SystemExit(f"{path}: expected a list of labelled answers")
    return rows


def load_corpus() -> list[dict[str, Any]]:
    """Every labelled triple: the generated JSONL rows, then the hand-written and held-out YAML ones."""
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for path in (HAND, HOLDOUT):
        rows += [
            {"style": "held_out" if path is HOLDOUT else "hand", **r}
            for r in yaml.safe_load(path.read_text(encoding="utf-8"))
        ]
    return rows


def score_row(row: dict[str, Any]) -> dict[str, Any]:
    """Check one triple; returns the row with ``scored`` (bool) and ``verdict``, ``method``, ``detail``."""
    expected = _EXPECTED.validate_python(row["expected"])
    result = check_expected(expected, row["answer"], row.get("query"))
    return {
        **row,
        "scored": result.correct,
        "verdict": result.verdict,
        "method": result.extraction.method,
        "detail": result.detail,
        "follows_format": follows_format(expected.type, visible_reply(row["answer"])[0]),
    }


def summarize(scored: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Precision, recall, counts and ambiguous count per expected type (and ``all``) of scored rows."""
    out: dict[str, dict[str, float]] = {}
    for kind in sorted({r["expected"]["type"] for r in scored}) + ["all"]:
        group = [r for r in scored if kind == "all" or r["expected"]["type"] == kind]
        tp = sum(r["scored"] and r["correct"] for r in group)
        fp = sum(r["scored"] and not r["correct"] for r in group)
        fn = sum(not r["scored"] and r["correct"] for r in group)
        out[kind] = {
            "n": len(group),
            "truly_correct": sum(r["correct"] for r in group),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
            "ambiguous": sum(r["verdict"] == "ambiguous" for r in group),
        }
    return out


HOSTILE = {
    "but": "but ",
    "cue": "the answer is: ",
    "fence": "```python\n",
    # round eight's shapes: hypotheticals, turns before numbers, council reports (each was quadratic once)
    "if": "if you ",
    "turn": "but 7 ",
    "report": "Member A: 5. ",
}
HOSTILE_EXPECTED: list[dict[str, Any]] = [
    {"type": "numeric", "value": 3},
    {"type": "exact", "value": "Paris"},
    {"type": "choice", "answer": "B", "options": {"A": "x", "B": "y"}},
    {"type": "boolean", "value": True},
    {"type": "python", "function": "f", "tests": "assert f() == 1\n"},
]


def _hostile_seconds(size: int) -> tuple[float, bool]:
    total, capped = 0.0, True
    for unit in HOSTILE.values():
        text = (unit * (size // len(unit) + 1))[:size]
        for block in HOSTILE_EXPECTED:
            result, t = timed(lambda b=block, s=text: check_expected(_EXPECTED.validate_python(b), s))
            total += t.wall_s
            capped &= result.extraction.capped
    return total / (len(HOSTILE) * len(HOSTILE_EXPECTED)), capped


def run(quick: bool = False) -> BenchResult:
    """Precision and recall per expected type on the corpus; hostile-input cost at 128 KB and 1 MB
    (``quick``: the corpus without its python rows, and the 128 KB answers only)."""
    rows = [r for r in load_corpus() if not quick or r["expected"]["type"] != "python"]  # quick: no sandbox
    scored, t = timed(lambda: [score_row(r) for r in rows])
    stats = summarize(scored)
    missed = sorted(r["id"] for r in scored if r["scored"] != r["correct"])
    figures: dict[str, float] = {
        "corpus_n": float(len(rows)),
        "corpus_wrong": float(sum(not r["correct"] for r in rows)),
        "corpus_s": t.wall_s,
    }
    table: list[BenchRow] = []
    kinds = Counter(r["expected"]["type"] for r in rows)
    for kind, s in stats.items():
        figures[f"{kind}.precision"] = s["precision"]
        figures[f"{kind}.recall"] = s["recall"]
        figures[f"{kind}.ambiguous"] = s["ambiguous"]
        table.append(
            BenchRow(
                name=f"extraction.{kind}",
                figure=f"P {s['precision']:.3f} R {s['recall']:.3f}",
                ratio=f"{s['tp']}/{s['truly_correct']} found",
                note=(
                    f"n={s['n']} ({kinds.get(kind, s['n'])} cases), fp={s['fp']}, fn={s['fn']}, "
                    f"ambiguous={s['ambiguous']}"
                ),
            )
        )
    for name, path, firsts, at in (
        ("blind_dev", BLIND_DEV, BLIND_DEV_FIRST, "81a3235"),
        ("blind2_dev", BLIND2_DEV, BLIND2_DEV_FIRST, "bc1e952"),
    ):
        blind = [r for r in load_corpus_file(path) if not quick or r["expected"]["type"] != "python"]
        for kind, s in summarize([score_row(r) for r in blind]).items():
            figures[f"{name}.{kind}.precision"] = s["precision"]
            figures[f"{name}.{kind}.recall"] = s["recall"]
            first = firsts.get(kind)
            table.append(
                BenchRow(
                    name=f"extraction.{name}.{kind}",
                    figure=f"P {s['precision']:.3f} R {s['recall']:.3f}",
                    ratio=f"{s['tp']}/{s['truly_correct']} found",
                    note=(
                        f"n={s['n']}, fp={s['fp']}, fn={s['fn']}, ambiguous={s['ambiguous']}"
                        + (f"; first score at {at}: P {first[2]:.3f} R {first[3]:.3f}" if first else "")
                    ),
                )
            )
    small, capped_small = _hostile_seconds(128 * 1024)
    big, capped_big = (small, capped_small) if quick else _hostile_seconds(1024 * 1024)
    figures["hostile_128k_ms"] = small * 1000
    figures["hostile_1m_ms"] = big * 1000
    table.append(
        BenchRow(
            name="extraction.hostile",
            figure=f"{small * 1000:.1f} ms / {big * 1000:.1f} ms",
            ratio=f"{ratio(big, small):.2f}x",
            note="per case at 128 KB / 1 MB (1 MB = 128 KB in --quick)",
        )
    )
    notes = [
        f"{len(rows)} labelled triples, {int(figures['corpus_wrong'])} truly wrong; misses: "
        + (", ".join(missed) or "none"),
        f"hostile answers capped: {capped_small and capped_big}",
    ]
    return BenchResult(name="extraction", figures=figures, rows=tuple(table), notes=tuple(notes))


def score_file(path: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, float]]]:
    """Score every row of one corpus file once; the scored rows and :func:`summarize`'s figures."""
    rows = load_corpus_file(path)
    for i, row in enumerate(rows):
        row.setdefault("id", f"row-{i}")
    scored = [score_row(r) for r in rows]
    return scored, summarize(scored)


def table(stats: dict[str, dict[str, float]], scored: list[dict[str, Any]]) -> list[str]:
    """The per-type lines: n, truly correct, precision, recall, fp, fn, and the verdict counts."""
    lines = [f"{'type':9} {'n':>4} {'right':>5} {'P':>6} {'R':>6} {'fp':>3} {'fn':>3}  verdicts"]
    for kind, s in stats.items():
        group = [r for r in scored if kind == "all" or r["expected"]["type"] == kind]
        verdicts = Counter(r["verdict"] for r in group)
        shown = " ".join(f"{v}={verdicts[v]}" for v in ("correct", "wrong", "ambiguous", "unanswered"))
        lines.append(
            f"{kind:9} {int(s['n']):4} {int(s['truly_correct']):5} {s['precision']:6.3f} "
            f"{s['recall']:6.3f} {int(s['fp']):3} {int(s['fn']):3}  {shown}"
        )
    return lines


def by_format(scored: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The ``all`` figures of :func:`summarize` for the answers that followed the answer-format
    instruction (:func:`harness.metrics.declared.follows_format` on the reply after any visible
    thinking: an ``Answer:`` last line, or a fenced python block) and for those that did not."""
    return {
        name: summarize(group)["all"]
        for name, group in (
            ("followed", [r for r in scored if r["follows_format"]]),
            ("not followed", [r for r in scored if not r["follows_format"]]),
        )
        if group
    }


def main(argv: list[str] | None = None) -> int:
    """``--corpus PATH``: score that file once; without it, the whole benchmark."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, help="a labelled corpus file to score once")
    parser.add_argument("--misses", action="store_true", help="list every answer scored against its label")
    parser.add_argument("--json", type=Path, help="write the figures as JSON to this file")
    args = parser.parse_args(argv)
    if args.corpus is None:
        result = run()
        for row in result.rows:
            print(f"{row.name:24} {row.figure:24} {row.ratio:14} {row.note}")
        for note in result.notes:
            print(note)
        return 0
    scored, stats = score_file(args.corpus)
    print(f"{args.corpus}: {len(scored)} labelled answers, {sum(not r['correct'] for r in scored)} truly wrong")
    print("\n".join(table(stats, scored)))
    formats = by_format(scored)
    for name, f in formats.items():
        print(
            f"format {name:12} n={int(f['n'])} right={int(f['truly_correct'])} P {f['precision']:.3f} "
            f"R {f['recall']:.3f} fp={int(f['fp'])} fn={int(f['fn'])}"
        )
    if args.misses:
        for r in scored:
            if r["scored"] != r["correct"]:
                label = "truly correct" if r["correct"] else "truly wrong"
                print(f"MISS {r['id']} ({r['expected']['type']}, {label}, {r['verdict']}): {r['detail'][:240]}")
    if args.json:
        figures = {"corpus": str(args.corpus), "stats": stats, "format": formats}
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
