"""Issue 10, input side of a run: which files are datasets, which paths and runs a command uses,
and stores that cannot be written. Every bad input is a one-paragraph error with exit 2 that names
the path, file:line or variable; the commands run in-process through ``harness.cli.main``.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from harness.cli import main
from harness.common.errors import CacheMiss, DatasetError, StoreError
from harness.config import load_settings
from harness.data.cases import discover, is_dataset_file, load_datasets
from harness.providers.cache import CachedProvider, CacheStore
from harness.providers.probe import Probe, ProbeReply
from harness.records.transcript import Completion, Message
from harness.run.orchestrate import run_cases
from harness.run.result import CaseResult
from harness.run.runs import RESULTS, Manifest, RunWriter, load_run, read_results, resolve_run
from tests.cli_env import run_pytest
from tests.fault_server import FaultServer, ok

GOLDEN = """golden_datasets:
  - name: {name}
    queries:
      - {{id: {name}-001, query: "Capital of France?", required_mentions: [Paris]}}
      - {{id: {name}-002, query: "Capital of Italy?", required_mentions: [Rome]}}
"""


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_paragraph_error(err: str, *pieces: str) -> None:
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for piece in pieces:
        assert piece in err, (piece, err)


def endpoint_env(monkeypatch: pytest.MonkeyPatch, server: FaultServer) -> None:
    monkeypatch.setenv("LLM_COUNCIL_BASE_URL", server.base_url)
    monkeypatch.setenv("LLM_COUNCIL_MODELS", "m")
    monkeypatch.setenv("LLM_COUNCIL_RUBRIC_SCORING", "false")
    monkeypatch.setenv("LLM_COUNCIL_CACHE_MODE", "off")


def odd_layouts(folder: Path) -> set[str]:
    """Dataset files the old first-4-KB sniffing skipped; returns their dataset names."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bom.yaml").write_bytes(b"\xef\xbb\xbf" + GOLDEN.format(name="bom").encode())
    (folder / "comments.yaml").write_text("# licence header\n" * 400 + GOLDEN.format(name="comments"))
    (folder / "flow.yaml").write_text("{golden_datasets: [{name: flow, queries: [{id: f-1, query: 'Capital?'}]}]}\n")
    (folder / "UPPER.YAML").write_text(GOLDEN.format(name="upper"))
    (folder / "settings.yaml").write_text("models: smollm2\n")  # YAML that is not a dataset: skipped
    (folder / "notes.txt").write_text(GOLDEN.format(name="txt"))  # not a YAML file name: skipped
    return {"bom", "comments", "flow", "upper"}


# --- item 4: datasets are found by parsing --------------------------------------------------------


def test_datasets_are_detected_by_parsing_not_sniffing(tmp_path: Path) -> None:
    names = odd_layouts(tmp_path / "data")
    assert (tmp_path / "data" / "comments.yaml").stat().st_size > 4096
    for f in ("bom.yaml", "comments.yaml", "flow.yaml", "UPPER.YAML"):
        assert is_dataset_file(tmp_path / "data" / f), f
    assert not is_dataset_file(tmp_path / "data" / "settings.yaml")
    found = discover([tmp_path / "data"])
    assert {d.name for d in found} == names
    bom = next(d for d in found if d.name == "bom")
    bom_file = tmp_path / "data" / "bom.yaml"
    assert [c.source for c in bom.cases] == [f"{bom_file}:4", f"{bom_file}:5"]


def test_a_data_folder_without_datasets_is_an_error(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (clean_env / "empty").mkdir()
    (clean_env / "empty" / "settings.yaml").write_text("models: smollm2\n")
    with pytest.raises(DatasetError, match="no dataset file in this folder"):
        discover([clean_env / "empty"])
    code, _, err = cli(capsys, "run", "--data", "empty")
    assert code == 2
    one_paragraph_error(err, "empty: no dataset file in this folder")


def test_pytest_collects_odd_layouts_and_files_named_outside_the_data_paths(tmp_path: Path) -> None:
    """Items 4 and 26: ``pytest -m golden`` collects every layout; a file named on the command line is
    collected wherever it is, without ``-o harness_data_paths``."""
    odd_layouts(tmp_path / "golden")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "extra.yaml").write_text(GOLDEN.format(name="extra"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    base = ["-m", "golden", "--collect-only", "-q", "--harness-subjects", "baseline"]
    every = run_pytest(tmp_path, *base, "golden")
    items = sorted(line.split("::", 1)[1] for line in every.stdout.splitlines() if "::" in line)
    assert items == sorted(
        [
            "bom::bom-001[baseline]",
            "bom::bom-002[baseline]",
            "comments::comments-001[baseline]",
            "comments::comments-002[baseline]",
            "flow::f-1[baseline]",
            "upper::upper-001[baseline]",
            "upper::upper-002[baseline]",
        ]
    ), every.stdout + every.stderr
    named = run_pytest(tmp_path, *base, "elsewhere/extra.yaml")
    assert named.returncode == 0, named.stdout + named.stderr
    assert "elsewhere/extra.yaml::extra::extra-001[baseline]" in named.stdout
    assert "elsewhere/extra.yaml::extra::extra-002[baseline]" in named.stdout
    (tmp_path / "golden" / "again.yaml").write_text(GOLDEN.format(name="flow"))  # item 8 under pytest
    dup = run_pytest(tmp_path, *base, "golden")
    assert dup.returncode != 0
    assert "dataset name 'flow' is defined in two files" in dup.stdout, dup.stdout
    assert "golden/again.yaml" in dup.stdout and "golden/flow.yaml" in dup.stdout


# --- item 8: one dataset name, two files ----------------------------------------------------------


def test_duplicate_dataset_name_across_files_names_both(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (clean_env / "golden").mkdir()
    (clean_env / "golden" / "a.yaml").write_text(GOLDEN.format(name="geo"))
    (clean_env / "golden" / "b.yaml").write_text(GOLDEN.format(name="geo"))
    with pytest.raises(DatasetError) as info:
        discover([clean_env / "golden"])
    assert "dataset name 'geo' is defined in two files" in str(info.value)
    assert str(clean_env / "golden" / "a.yaml") in str(info.value) and str(clean_env / "golden" / "b.yaml") in str(
        info.value
    )
    code, _, err = cli(capsys, "run", "--dataset", "geo")
    assert code == 2
    one_paragraph_error(err, "dataset name 'geo' is defined in two files", "golden/a.yaml", "golden/b.yaml")


def test_the_same_file_named_twice_is_loaded_once(tmp_path: Path) -> None:
    (tmp_path / "geo.yaml").write_text(GOLDEN.format(name="geo"))
    assert [d.name for d in discover([tmp_path / "geo.yaml", tmp_path])] == ["geo"]


# --- items 25 and 15: a mistyped --data path, a bad --limit ----------------------------------------


def test_mistyped_data_path_is_exit_2(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (clean_env / "golden").mkdir()
    (clean_env / "golden" / "geo.yaml").write_text(GOLDEN.format(name="geo"))
    code, _, err = cli(capsys, "run", "--data", "golden/goe.yaml")
    assert code == 2
    one_paragraph_error(err, "golden/goe.yaml: no such file or folder")
    assert not (clean_env / "reports").exists()  # nothing ran


@pytest.mark.parametrize("value", ["0", "-1", "-3", "two"])
def test_limit_must_be_a_positive_whole_number(clean_env: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", f"--limit={value}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--limit: expected a whole number >= 1" in err and "Traceback" not in err


# --- item 27: research consent without a secret stops before any model call -----------------------


def test_research_consent_without_secret_stops_before_any_model_call(
    fault_server: FaultServer,
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (clean_env / "golden").mkdir()
    (clean_env / "golden" / "geo.yaml").write_text(GOLDEN.format(name="geo"))
    endpoint_env(monkeypatch, fault_server)
    monkeypatch.setenv("LLM_COUNCIL_BIAS_PERSISTENCE", "true")
    monkeypatch.setenv("LLM_COUNCIL_BIAS_CONSENT", "4")
    code, _, err = cli(capsys, "run", "--subjects", "baseline")
    assert code == 2
    one_paragraph_error(err, "level 4 (research)", "LLM_COUNCIL_HASH_SECRET")
    assert fault_server.requests == []
    monkeypatch.setenv("LLM_COUNCIL_HASH_SECRET", "k")
    assert load_settings(None).bias_consent == 4


# --- item 13: an unwritable bias store costs the bias records, not the results ---------------------


def test_unwritable_bias_store_warns_once_and_keeps_results(
    fault_server: FaultServer,
    clean_env: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    (clean_env / "store-is-a-folder").mkdir()
    settings = load_settings(
        None,
        base_url=fault_server.base_url,
        rubric_scoring=False,
        cache_mode="off",
        models=[{"id": m, "provider": "openai", "model": m} for m in ("a", "b", "c")],
        chairman="a",
        bias_persistence=True,
        bias_store=clean_env / "store-is-a-folder",
        reports_dir=clean_env / "reports",
    )
    fault_server.default = ok("Paris. FINAL RANKING:\n1. Response A\n2. Response B")
    (clean_env / "geo.yaml").write_text(GOLDEN.format(name="geo"))
    with caplog.at_level(logging.WARNING, logger="harness.run.engine"):
        run = run_cases(settings, load_datasets(clean_env / "geo.yaml"), ["council"])
    assert [r.status for r in run.results] == ["passed", "failed"]  # "Rome" is never answered
    assert all(r.error is None and r.transcript is not None and r.transcript.reviews for r in run.results)
    warnings = [r.getMessage() for r in caplog.records if r.name == "harness.run.engine"]
    assert len(warnings) == 1 and "bias records are not being saved" in warnings[0]
    assert str(clean_env / "store-is-a-folder") in warnings[0]


# --- item 20: paths that cannot be used --------------------------------------------------------------


def test_reports_dir_under_dev_null_is_exit_2(
    clean_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (clean_env / "golden").mkdir()
    (clean_env / "golden" / "geo.yaml").write_text(GOLDEN.format(name="geo"))
    monkeypatch.setenv("LLM_COUNCIL_REPORTS_DIR", "/dev/null")
    monkeypatch.setenv("LLM_COUNCIL_CACHE_MODE", "off")
    code, _, err = cli(capsys, "run", "--subjects", "baseline")
    assert code == 2
    one_paragraph_error(err, "/dev/null/runs/", "cannot create the run folder", "LLM_COUNCIL_REPORTS_DIR")


def test_cache_path_under_dev_null_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as info:
        CacheStore(Path("/dev/null/cache/cache.sqlite"))
    assert "/dev/null/cache/cache.sqlite" in str(info.value) and "LLM_COUNCIL_CACHE_PATH" in str(info.value)


def test_results_jsonl_that_is_a_folder(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / RESULTS).mkdir(parents=True)
    (run_dir / "manifest.json").write_text(Manifest(run_id="r", started_at="2026-01-01T00:00:00Z").model_dump_json())
    with pytest.raises(StoreError) as reading:
        load_run(run_dir)
    assert str(run_dir / RESULTS) in str(reading.value) and "cannot be read" in str(reading.value)
    with pytest.raises(StoreError) as writing:
        RunWriter(run_dir)
    assert str(run_dir / RESULTS) in str(writing.value) and "not a regular file" in str(writing.value)


# --- item 23: locked and corrupt caches ----------------------------------------------------------


class _Answers:
    """A provider that answers from a list (the real one is exercised in test_cache.py)."""

    name = "fixed"

    def __init__(self) -> None:
        self.calls = 0

    def identity(self, model: str) -> str:
        return f"fixed:{model}"

    async def chat(self, model: str, messages: object, **kwargs: object) -> Completion:
        self.calls += 1
        return Completion(text=f"fresh {self.calls}", model=model)

    async def aclose(self) -> None:
        return None


def test_corrupt_row_is_refetched_in_readwrite_and_an_error_in_replay(tmp_path: Path) -> None:
    import asyncio

    from harness.providers.cache import cache_key

    path = tmp_path / "cache.sqlite"
    store = CacheStore(path)
    messages = [Message(role="user", content="q")]
    kwargs = dict(temperature=0.0, max_tokens=8, seed=1, top_p=1.0, json_schema=None)
    key = cache_key("fixed:m", "m", messages, kwargs)
    db = sqlite3.connect(path)
    db.execute("INSERT INTO completions (key, model, completion) VALUES (?, 'm', '{not json')", (key,))
    db.commit()
    db.close()

    replay = CachedProvider(_Answers(), store, "replay")
    with pytest.raises(StoreError) as info:
        asyncio.run(replay.chat("m", messages, temperature=0.0, max_tokens=8, seed=1))
    assert "is corrupt" in str(info.value) and "--cache-mode readwrite" in str(info.value)
    assert "delete" not in str(info.value)

    inner = _Answers()
    readwrite = CachedProvider(inner, store, "readwrite")
    got = asyncio.run(readwrite.chat("m", messages, temperature=0.0, max_tokens=8, seed=1))
    assert got.text == "fresh 1" and inner.calls == 1
    assert store.get(key) == Completion(text="fresh 1", model="m")  # the corrupt row was overwritten
    again = asyncio.run(readwrite.chat("m", messages, temperature=0.0, max_tokens=8, seed=1))
    assert again.cached and inner.calls == 1
    store.close()


class _Probes(_Answers):
    """A provider that answers probes with fixed log-probabilities."""

    async def probe(self, model: str, messages: object, probes: object, **kwargs: object) -> ProbeReply:
        self.calls += 1
        return ProbeReply(model=model, logprobs=({" A": -0.1 * self.calls},), tokens_in=5)


def test_corrupt_probe_row_is_refetched_in_readwrite_and_an_error_in_replay(tmp_path: Path) -> None:
    """Probe replies go through the same cache path as chat replies (a corrupt row included)."""
    import asyncio

    from harness.providers.cache import cache_key

    path = tmp_path / "cache.sqlite"
    store = CacheStore(path)
    messages = [Message(role="user", content="q")]
    probes = [Probe(text="The best answer is", options=(" A",))]
    kwargs = dict(seed=1, lead="", max_tokens=0, temperature=0.0, top_p=1.0)
    key = cache_key("fixed:m", "m", messages, {**kwargs, "kind": "probe", "probes": [p.model_dump() for p in probes]})
    db = sqlite3.connect(path)
    db.execute("INSERT INTO completions (key, model, completion) VALUES (?, 'm', '{not json')", (key,))
    db.commit()
    db.close()

    with pytest.raises(StoreError) as info:
        asyncio.run(CachedProvider(_Probes(), store, "replay").probe("m", messages, probes, seed=1))
    assert "is corrupt" in str(info.value) and "--cache-mode readwrite" in str(info.value)

    inner = _Probes()
    readwrite = CachedProvider(inner, store, "readwrite")
    got = asyncio.run(readwrite.probe("m", messages, probes, seed=1))
    assert got.logprobs == ({" A": -0.1},) and inner.calls == 1 and not got.cached
    assert store.get(key, ProbeReply) == got  # the corrupt row was overwritten
    again = asyncio.run(readwrite.probe("m", messages, probes, seed=1))
    assert again.cached and again.logprobs == got.logprobs and inner.calls == 1
    with pytest.raises(CacheMiss) as miss:  # replay of a probe never recorded names the model
        asyncio.run(CachedProvider(_Probes(), store, "replay").probe("m", messages, probes, seed=2))
    assert "no cached probe reply for model 'm'" in str(miss.value)
    store.close()


def test_locked_cache_says_locked_and_not_delete(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CacheStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing for a long time
    try:
        store = CacheStore(path, busy_timeout=0.2)
        with pytest.raises(StoreError) as info:
            store.put("k", Completion(text="x", model="m"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    message = str(info.value)
    assert str(path) in message and "locked by another process (waited 0.2 s)" in message
    assert "do not delete it" in message
    store.close()


# --- item 19: runs are located in one place, honouring LLM_COUNCIL_REPORTS_DIR ----------------------


def write_run(runs_dir: Path, run_id: str, manifest_text: str | None = None) -> Path:
    run_dir = runs_dir / run_id
    run_dir.mkdir(parents=True)
    manifest = Manifest(
        run_id=run_id,
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T00:01:00Z",
        datasets=("geo",),
        subjects=("council",),
    )
    (run_dir / "manifest.json").write_text(manifest_text or manifest.model_dump_json())
    (run_dir / RESULTS).write_text(
        CaseResult(case_id="geo-001", dataset="geo", subject="council", status="passed").model_dump_json() + "\n"
    )
    return run_dir


def test_resolve_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "reports" / "runs"
    good = write_run(runs, "20260101-000000-aaaa")
    write_run(runs, "20260102-000000-bbbb", manifest_text="{not json")
    assert resolve_run(None, tmp_path / "reports") == good  # the newest readable one
    assert "warning: skipped run" in capsys.readouterr().err
    assert resolve_run("latest", tmp_path / "reports") == good
    assert resolve_run("20260101-000000-aaaa", tmp_path / "reports") == good
    assert resolve_run(good, tmp_path / "elsewhere") == good
    with pytest.raises(StoreError, match="no run 'nope'"):
        resolve_run("nope", tmp_path / "reports")
    with pytest.raises(StoreError, match="no runs found"):
        resolve_run(None, tmp_path / "empty")


def test_load_run_finds_a_run_under_the_settings_reports_dir(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``load_run(ref, settings)`` looks for a run id, ``latest`` or ``None`` under ``settings.reports_dir``
    (here ``LLM_COUNCIL_REPORTS_DIR``), never under the default ``reports/`` of the working folder."""
    custom = clean_env / "custom"
    older = write_run(custom / "runs", "20260101-000000-aaaa")
    newest = write_run(custom / "runs", "20260103-000000-cccc")
    write_run(clean_env / "reports" / "runs", "20260105-000000-dddd")  # newer, but in the default folder
    monkeypatch.setenv("LLM_COUNCIL_REPORTS_DIR", str(custom))
    settings = load_settings(None)
    assert load_run("20260101-000000-aaaa", settings).run_dir == older
    assert load_run("latest", settings).run_dir == newest
    assert load_run(None, settings).run_id == "20260103-000000-cccc"
    assert [r.case_id for r in load_run(older, settings).results] == ["geo-001"]  # a folder path still works
    with pytest.raises(StoreError, match="no run '20260105-000000-dddd'"):
        load_run("20260105-000000-dddd", settings)


def test_report_commands_honour_reports_dir_and_skip_bad_runs(
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = clean_env / "custom" / "runs"
    write_run(runs, "20260101-000000-aaaa")
    write_run(runs, "20260102-000000-bbbb", manifest_text='{"run_id": 5}')
    newest = write_run(runs, "20260103-000000-cccc")
    monkeypatch.setenv("LLM_COUNCIL_REPORTS_DIR", str(clean_env / "custom"))

    code, out, err = cli(capsys, "report")
    assert code == 0, err
    assert out.splitlines()[0] == str(newest / "index.html") and (newest / "index.html").is_file()
    assert out.splitlines()[1] == "gate: pass (0 reason(s)); complete: 1 result(s)"

    code, out, err = cli(capsys, "quality-report", "--temporal", "jaccard")
    assert code == 0, err
    assert "20260103-000000-cccc" in out
    assert "warning: skipped run" in err and "20260102-000000-bbbb" in err

    code, out, err = cli(capsys, "quality-report", "--sessions", "3", "--format", "json")
    assert code == 0, err
    assert "20260102-000000-bbbb" in err
    code, out, err = cli(capsys, "compare", "20260103-000000-cccc")
    assert code == 2 and "no baseline to compare with" in err  # found the run by id under the setting
    assert read_results(newest / RESULTS)[1] == []
