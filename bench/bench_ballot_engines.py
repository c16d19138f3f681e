"""Benchmark: three ways for an embedded reviewer to produce a stage-2 ballot, on the same ballots.

Issue 16 item 3 asks whether a faster constrained-decoding engine beats the probability ballots.
In one process, on SmolLM2-135M, for each of ``--ballots`` review prompts (the first challenges of
the reasoning suite, each with three fixed candidate answers: the challenge's reference answer, a
wrong one and an off-topic one, in the recorded presentation order):

1. **gbnf** -- today's endpoint-style path on llama.cpp: the JSON ballot schema
   (:func:`harness.council.prompts.ballot_schema`, no rubric) compiled by llama-cpp-python to a
   GBNF grammar and sampled under it (``response_format`` json_object + schema), greedy.
2. **llguidance** -- the same schema compiled by ``llguidance`` (``LLMatcher`` over the model's
   own vocabulary, ``llguidance.llamacpp.lltokenizer_from_vocab``); a greedy loop that evaluates
   one token at a time, masks the logits with the matcher's bitmask and takes the arg-max. Same
   prompt tokens, same cap (``review_max_tokens``).
3. **probabilities** -- the harness's probability ballot (:mod:`harness.council.ballots`): two
   presentation orders, one probe each, a free critique of ``critique_max_tokens`` tokens.

Each engine runs every ballot once after one warm-up ballot (model load and grammar/tokenizer set-up
excluded and reported separately). Printed: seconds per ballot, tokens generated, and whether the
ballot parsed to a full ranking. Nothing here asserts a time.

Run: ``python bench/bench_ballot_engines.py [--ballots 4] [--threads N] [--max-tokens N]``
(needs ``pip install -e .[bench]`` for llguidance; without it the llguidance row says so).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, load_note, print_result, ratio  # noqa: E402

MODEL = "smollm2-135m"


def review_inputs(n: int) -> list[tuple[str, tuple[str, ...], dict[str, str]]]:
    """(query, presented order, label -> answer) for the first ``n`` suite challenges."""
    from harness.council.ranking import labels_for, presentation_order
    from harness.data.cases import load_datasets

    cases = [c for d in load_datasets(ROOT / "suites" / "reasoning-100.yaml") for c in d.cases]
    out = []
    for i, case in enumerate(cases[:n]):
        labels = labels_for(3)
        right = (case.ground_truth or "").strip() or "I do not know."
        texts = {
            labels[0]: right,
            labels[1]: "The answer is 42, because that is always the answer.",
            labels[2]: "Paris is the capital of France.",
        }
        out.append((case.query, presentation_order(labels, i), texts))
    return out


def gbnf_ballots(llm, inputs, max_tokens: int) -> list[tuple[float, int, bool]]:  # noqa: ANN001
    from harness.council.prompts import ballot_schema, review_messages
    from harness.council.ranking import parse_ballot

    out = []
    for query, order, texts in inputs:
        schema = ballot_schema(sorted(texts), rubric=False)
        started = time.perf_counter()
        llm.reset()
        reply = llm.create_chat_completion(
            messages=[m.model_dump() for m in review_messages(query, order, texts, rubric=False)],
            temperature=0.0,
            max_tokens=max_tokens,
            seed=0,
            response_format={"type": "json_object", "schema": schema},
        )
        seconds = time.perf_counter() - started
        text = reply["choices"][0]["message"].get("content") or ""
        ballot = parse_ballot(text, sorted(texts))
        out.append((seconds, int(reply["usage"]["completion_tokens"]), len(ballot.ranking) == len(texts)))
    return out


def llguidance_ballots(llm, tokenizer, inputs, max_tokens: int) -> list[tuple[float, int, bool]]:  # noqa: ANN001
    import llguidance
    import llguidance.numpy as lnp
    import numpy as np

    from harness.council.prompts import ballot_schema, review_messages
    from harness.council.ranking import parse_ballot
    from harness.providers.local import LocalProvider

    provider = LocalProvider.__new__(LocalProvider)
    out = []
    n_vocab = llm.n_vocab()
    for query, order, texts in inputs:
        schema = ballot_schema(sorted(texts), rubric=False)
        started = time.perf_counter()
        grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(schema))
        matcher = llguidance.LLMatcher(tokenizer, grammar)
        prompt = LocalProvider._prompt_tokens(provider, llm, MODEL, review_messages(query, order, texts, rubric=False))
        llm.reset()
        llm.eval(prompt)
        mask = lnp.allocate_token_bitmask(1, n_vocab)
        generated: list[int] = []
        while len(generated) < max_tokens and not matcher.is_stopped():
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(1, n_vocab)).copy()
            lnp.fill_next_token_bitmask(matcher, mask)
            lnp.apply_token_bitmask_inplace(logits, mask)
            token = int(logits[0].argmax())
            if not matcher.consume_token(token):
                break
            if token == llm.token_eos() or matcher.is_stopped():
                break
            generated.append(token)
            llm.eval([token])
        seconds = time.perf_counter() - started
        text = llm.detokenize(generated).decode("utf-8", "replace")
        ballot = parse_ballot(text, sorted(texts))
        out.append((seconds, len(generated), len(ballot.ranking) == len(texts)))
    return out


def probability_ballots(inputs, threads: int, critique: int) -> list[tuple[float, int, bool]]:  # noqa: ANN001
    from harness.config import MemberSpec, Settings
    from harness.council.ballots import probability_review
    from harness.council.calls import Caller
    from harness.council.ranking import label_assignment
    from harness.providers.local import LocalProvider

    async def go() -> list[tuple[float, int, bool]]:
        provider = LocalProvider(n_threads=threads)
        caller = Caller({"local": provider}, Settings())
        member = MemberSpec(id="rev", model=MODEL, temperature=0.2)
        rows = []
        try:
            for i, (query, order, texts) in enumerate([inputs[0], *inputs]):
                started = time.perf_counter()
                review, records = await probability_review(
                    caller, member, query, order, texts, label_assignment(sorted(texts), i), i, critique
                )
                if i:  # the first is the warm-up (model load)
                    rows.append(
                        (
                            time.perf_counter() - started,
                            sum(r.tokens_out for r in records),
                            len(review.ballot.ranking) == len(texts),
                        )
                    )
        finally:
            await provider.aclose()
        return rows

    return asyncio.run(go())


def _summary(rows: list[tuple[float, int, bool]]) -> tuple[float, float, int]:
    return (sum(r[0] for r in rows) / len(rows), sum(r[1] for r in rows) / len(rows), sum(r[2] for r in rows))


def run(ballots: int = 4, threads: int | None = None, max_tokens: int | None = None) -> BenchResult:
    from llama_cpp import Llama

    from harness.config import Settings
    from harness.providers.embedded import model_path
    from harness.providers.local import N_CTX, _quiet_stderr

    threads = threads or os.cpu_count() or 1
    settings = Settings()
    inputs = review_inputs(ballots)
    cap = max_tokens or settings.review_max_tokens
    with _quiet_stderr():
        llm = Llama(
            model_path=str(model_path(MODEL)),
            n_ctx=N_CTX,
            n_threads=threads,
            n_threads_batch=threads,
            seed=0,
            verbose=False,
        )
    gbnf_ballots(llm, inputs[:1], cap)  # warm-up
    gbnf = gbnf_ballots(llm, inputs, cap)
    figures: dict[str, float] = {}
    rows = []
    notes = [load_note()]
    print("gbnf", gbnf, flush=True)
    mean, toks, ok = _summary(gbnf)
    figures.update({"gbnf_s": mean, "gbnf_tokens": toks})
    rows.append(
        BenchRow(
            name="ballot.gbnf",
            figure=f"{mean:.2f} s per ballot, {toks:.0f} tokens",
            ratio="1.00x",
            note=f"{ok}/{len(gbnf)} full rankings",
        )
    )
    try:
        import llguidance  # noqa: F401
        from llguidance.llamacpp import lltokenizer_from_vocab
    except ImportError as exc:
        figures["llguidance_s"] = float("nan")
        notes.append(f"llguidance not measured: {exc}")
    else:
        started = time.perf_counter()
        tokenizer = lltokenizer_from_vocab(llm._model.vocab)
        setup = time.perf_counter() - started
        llguidance_ballots(llm, tokenizer, inputs[:1], cap)  # warm-up
        guided = llguidance_ballots(llm, tokenizer, inputs, cap)
        print("llguidance", guided, flush=True)
        gmean, gtoks, gok = _summary(guided)
        figures.update({"llguidance_s": gmean, "llguidance_tokens": gtoks, "llguidance_setup_s": setup})
        rows.append(
            BenchRow(
                name="ballot.llguidance",
                figure=f"{gmean:.2f} s per ballot, {gtoks:.0f} tokens",
                ratio=f"{ratio(gmean, mean):.2f}x gbnf",
                note=f"{gok}/{len(guided)} full rankings; tokenizer set-up {setup:.2f} s once",
            )
        )
    llm.close()
    prob = probability_ballots(inputs, threads, settings.critique_max_tokens)
    pmean, ptoks, pok = _summary(prob)
    figures.update({"probabilities_s": pmean, "probabilities_tokens": ptoks})
    rows.append(
        BenchRow(
            name="ballot.probabilities",
            figure=f"{pmean:.2f} s per ballot, {ptoks:.0f} tokens",
            ratio=f"{ratio(pmean, mean):.2f}x gbnf",
            note=f"{pok}/{len(prob)} full rankings; two orders + a {settings.critique_max_tokens}-token critique",
        )
    )
    return BenchResult(name="ballot_engines", figures=figures, rows=tuple(rows), notes=tuple(notes))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ballots", type=int, default=4, help="ballots per engine (default 4)")
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: all cores)")
    parser.add_argument("--max-tokens", type=int, help="JSON ballot token cap (default: review_max_tokens)")
    args = parser.parse_args()
    result = run(ballots=args.ballots, threads=args.threads, max_tokens=args.max_tokens)
    print_result(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
