"""Issue 25 item 1, end to end through ``council-harness run``: answer code that attacks what the harness
trusts after it ran.

One run of three ``expected: {type: python}`` cases against a scripted OpenAI-compatible endpoint on
127.0.0.1 (:class:`tests.fault_server.FaultServer`), with the key in the endpoint's variable, in a
``.env`` of the working folder and in the shell history of ``$HOME``. The harness runs from a copy of
its own package (``PYTHONPATH``), so the attack on the package source hits the copy, never this
checkout. Cases ``c1`` and ``c2`` answer ``7`` where 42 is expected; ``c3`` answers correctly and,
before returning, (a) rewrites every line of the run's ``results.jsonl`` to ``passed``, (b) rewrites
the recorded completions in the record/replay SQLite cache, (c) appends code to the copy's
``harness/sandbox/runner.py``, (d) reads the key from the ``.env`` and the shell history and prints
it base64-, hex-, reversed- and URL-encoded. Each probe is one test below; before the private file
system every one of them failed (the run exited 0 with "gate: pass").
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

import harness
from harness import sandbox
from tests.cli_env import harness_env
from tests.common.test_secrets import fake_key
from tests.fault_server import FaultServer, ok

pytestmark = pytest.mark.skipif(
    sandbox.isolation()[1] != sandbox.ISOLATED, reason=f"no private file system here: {sandbox.isolation()[1]}"
)

KEY_ENV = "COUNCIL_HOSTILE_TEST_API_KEY"
DATASET = """\
golden_datasets:
  - name: hostile
    queries:
""" + "".join(
    f"""\
      - id: c{i}
        query: "Case {i}: write answer() returning 42."
        expected: {{type: python, function: answer, tests: "assert answer() == 42\\n"}}
"""
    for i in (1, 2, 3)
)
WRONG = "```python\ndef answer():\n    return 7\n```"
MARKER = "# appended by answer code"

HOSTILE = """```python
import base64, glob, os, sqlite3, urllib.parse
found = []
for path in glob.glob({reports!r} + "/runs/*/results.jsonl"):
    try:
        text = open(path).read()
        for a, b in (('"status":"failed"', '"status":"passed"'), ('"correct":0.0', '"correct":1.0'),
                     ('"passed":false', '"passed":true'), ('"correct":false', '"correct":true'),
                     ('"verdict":"wrong"', '"verdict":"right"')):
            text = text.replace(a, b)
        open(path, "w").write(text)
        found.append("forged " + path)
    except OSError as exc:
        found.append("results: " + type(exc).__name__)
try:
    db = sqlite3.connect({cache!r})
    db.execute("UPDATE completions SET completion = replace(completion, 'return ' || '7', 'return ' || '42')")
    db.commit()
    found.append("cache poisoned")
except Exception as exc:
    found.append("cache: " + type(exc).__name__)
try:
    with open({source!r}, "a") as fh:
        fh.write("\\n{marker}\\n")
    found.append("source appended")
except OSError as exc:
    found.append("source: " + type(exc).__name__)
for path in ({dotenv!r}, {history!r}):
    try:
        for line in open(path):
            if "API_KEY=" in line:
                key = line.split("=", 1)[1].strip().encode()
                found += [base64.b64encode(key).decode(), key.hex(), key.decode()[::-1],
                          urllib.parse.quote(key.decode(), safe=""), "".join("%%%02X" % b for b in key)]
    except OSError as exc:
        found.append("key file: " + type(exc).__name__)
print("\\n".join(found))

def answer():
    return 6 * 7
```"""


def encoded(key: str) -> dict[str, bytes]:
    """The key in each form the answer code prints (and its base64 cores at every alignment)."""
    raw = key.encode()
    forms = {
        "verbatim": key,
        "base64": base64.b64encode(raw).decode(),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "reversed": key[::-1],
        "url": quote(key, safe=""),
        "percent": "".join(f"%{b:02X}" for b in raw),
    }
    for k in range(3):  # the characters of base64 that come from the key alone, at each offset modulo 3
        forms[f"base64@{k}"] = base64.b64encode(bytes(k) + raw).decode()[-(-8 * k // 6) : 8 * (k + len(raw)) // 6]
    return {name: form.encode() for name, form in forms.items()}


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("hostile")
    checkout = root / "checkout"
    shutil.copytree(Path(harness.__file__).parent, checkout / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    source = checkout / "harness" / "sandbox" / "runner.py"
    key = fake_key()
    home = root / "home"
    home.mkdir()
    (home / ".bash_history").write_text(f"ls\nexport OPENAI_API_KEY={key}\n", encoding="utf-8")
    (root / ".env").write_text(f"OPENAI_API_KEY={key}\n", encoding="utf-8")
    (root / "data.yaml").write_text(DATASET, encoding="utf-8")
    reports, cache = root / "reports", root / "cache" / "cache.sqlite"
    hostile = HOSTILE.format(
        reports=str(reports),
        cache=str(cache),
        source=str(source),
        marker=MARKER,
        dotenv=str(root / ".env"),
        history=str(home / ".bash_history"),
    )
    before = source.read_bytes()

    def respond(body: dict[str, Any]) -> str:
        return hostile if "Case 3" in str(body.get("messages")) else WRONG

    with FaultServer(default=ok(WRONG), responder=respond) as server:
        env = harness_env(
            **{
                KEY_ENV: key,
                "HOME": str(home),
                "PYTHONPATH": str(checkout),
                "LLM_COUNCIL_API_KEY_ENV": KEY_ENV,
                "LLM_COUNCIL_BASE_URL": server.base_url,
                "LLM_COUNCIL_MODELS": "remote-a",
                "LLM_COUNCIL_MAX_RETRIES": "0",
                "LLM_COUNCIL_RUBRIC_SCORING": "false",
                "LLM_COUNCIL_CONCURRENCY": "1",
                "LLM_COUNCIL_CACHE_PATH": str(cache),
                "LLM_COUNCIL_REPORTS_DIR": str(reports),
            }
        )
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "harness.cli",
                "run",
                "--data",
                "data.yaml",
                "--dataset",
                "hostile",
                "--subjects",
                "baseline",
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    (run_dir,) = (reports / "runs").iterdir()
    return {
        "done": done,
        "root": root,
        "run_dir": run_dir,
        "cache": cache,
        "source": source,
        "before": before,
        "key": key,
    }


def test_the_hostile_answer_really_ran(hostile_run: dict[str, Any]) -> None:
    """c3's code ran to the end and printed what each attack found: nothing to attack."""
    assert "Traceback" not in hostile_run["done"].stderr
    lines = [json.loads(line) for line in (hostile_run["run_dir"] / "results.jsonl").read_text("utf-8").splitlines()]
    (c3,) = [r for r in lines if r["case_id"] == "c3"]
    printed = c3["details"]["correctness"]["sandbox"]["stdout"].splitlines()
    assert printed == [
        "cache: OperationalError",
        "source: FileNotFoundError",
        "key file: FileNotFoundError",
        "key file: FileNotFoundError",
    ]


def test_a_forged_results_file_does_not_pass_the_gate(hostile_run: dict[str, Any]) -> None:
    """(a) The answer rewrote every results.jsonl line it could find to passed: the gate still fails on c1, c2."""
    done = hostile_run["done"]
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gate: fail" in done.stdout + done.stderr
    lines = (hostile_run["run_dir"] / "results.jsonl").read_text(encoding="utf-8").splitlines()
    status = {line.split('"case_id":"')[1][:2]: line.split('"status":"')[1].split('"')[0] for line in lines}
    assert status == {"c1": "failed", "c2": "failed", "c3": "passed"}


def test_the_record_replay_cache_is_not_poisoned(hostile_run: dict[str, Any]) -> None:
    """(b) The recorded completions of c1 and c2 still answer 7."""
    with contextlib.closing(sqlite3.connect(hostile_run["cache"])) as db:  # closed: no -shm left for the scan
        rows = [r[0] for r in db.execute("SELECT completion FROM completions")]
    assert len(rows) == 3
    assert sum("return 7" in r for r in rows) == 2 and not any("return 42" in r for r in rows)


def test_the_package_source_is_unchanged(hostile_run: dict[str, Any]) -> None:
    """(c) harness/sandbox/runner.py of the checkout the harness ran from is byte for byte what it was."""
    assert hostile_run["source"].read_bytes() == hostile_run["before"]


def test_no_encoding_of_the_key_in_any_written_file(hostile_run: dict[str, Any]) -> None:
    """(d) Every file under the run's folder (reports, cache, .env excluded) holds no form of the key."""
    root, key = hostile_run["root"], hostile_run["key"]
    written = [
        p
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in (".env", ".bash_history") and "checkout" not in p.parts
    ]
    assert any(p.name == "results.jsonl" for p in written) and any(p.name == "index.html" for p in written)
    leaks = [
        f"{p.relative_to(root)}: {name}"
        for p in written
        for name, form in encoded(key).items()
        if form in p.read_bytes()
    ]
    assert leaks == []
    done = hostile_run["done"]
    assert not [name for name, form in encoded(key).items() if form.decode() in done.stdout + done.stderr]
