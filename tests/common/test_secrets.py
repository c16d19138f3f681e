"""API keys never reach disk or messages: a real run through the OpenAI-compatible provider (a
``llama_cpp.server`` on 127.0.0.1) with a recognizable fake key, then every file it wrote, its
console output and the errors of a failing endpoint are searched for the key.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
import socket
import string
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from harness.common.errors import ProviderError
from harness.config import load_settings
from harness.data.cases import load_datasets
from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Message
from harness.report.html import write_report
from harness.run.orchestrate import run_cases
from tests.cli_env import clear_harness_env, harness_env

CLI = Path(sys.executable).parent / "council-harness"
KEY_ENV = "COUNCIL_HARNESS_SECRET_TEST_KEY"
DATASET = """\
golden_datasets:
  - name: secret
    queries:
      - id: s1
        query: "What is the capital of France?"
        required_mentions: [Paris]
"""


def fake_key() -> str:
    return "sk-test-" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(40))


def needles(key: str) -> list[bytes]:
    """The key, its Authorization header form, long pieces of its random part, and its common encodings:
    reversed, hex (both cases), URL-encoded byte by byte, and the characters of its base64 that come from
    the key alone at each of the three alignments (standard and URL-safe alphabets)."""
    random_part = key.removeprefix("sk-test-")
    raw = key.encode()
    cores = [base64.b64encode(bytes(k) + raw).decode()[-(-8 * k // 6) : 8 * (k + len(raw)) // 6] for k in range(3)]
    forms = [
        key,
        f"Bearer {key}",
        random_part,
        random_part[:16],
        random_part[-16:],
        key[::-1],
        raw.hex(),
        raw.hex().upper(),
        "".join(f"%{b:02X}" for b in raw),
        *cores,
        *(c.replace("+", "-").replace("/", "_") for c in cores),
    ]
    return [f.encode() for f in forms]


def leaks_in(folder: Path, key: str) -> list[str]:
    """Every file under ``folder`` (recursively, binary files included) that holds the key in some form."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path}: {n.decode()[:12]}..." for n in needles(key) if n in data]
    return found


def closed_port() -> int:
    """A loopback port with nothing listening on it (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_real_run_writes_the_key_nowhere(llama_server: str, tmp_path: Path) -> None:
    key = fake_key()
    data = tmp_path / "secret.yaml"
    data.write_text(DATASET, encoding="utf-8")
    env = harness_env()
    env.update(
        {
            KEY_ENV: key,
            "HOME": str(tmp_path / "home"),
            "LLM_COUNCIL_API_KEY_ENV": KEY_ENV,
            "LLM_COUNCIL_BASE_URL": llama_server,
            "LLM_COUNCIL_MODELS": "remote-a,remote-b",
            "LLM_COUNCIL_ANSWER_MAX_TOKENS": "8",
            "LLM_COUNCIL_REVIEW_MAX_TOKENS": "48",
            "LLM_COUNCIL_SYNTHESIS_MAX_TOKENS": "8",
            "LLM_COUNCIL_MAX_RETRIES": "0",
            "LLM_COUNCIL_RUBRIC_SCORING": "false",  # the judge would use the same provider: skip it to stay quick
            "LLM_COUNCIL_CACHE_PATH": str(tmp_path / "cache" / "cache.sqlite"),
            "LLM_COUNCIL_REPORTS_DIR": str(tmp_path / "reports"),
            "LLM_COUNCIL_BIAS_PERSISTENCE": "true",
            "LLM_COUNCIL_BIAS_STORE": str(tmp_path / "bias" / "bias_metrics.jsonl"),
        }
    )
    done = subprocess.run(
        [
            str(CLI),
            "run",
            "--data",
            str(data),
            "--dataset",
            "secret",
            "--subjects",
            "council,baseline",
            "--update-baseline",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    (run_dir,) = (tmp_path / "reports" / "runs").iterdir()
    results = (run_dir / "results.jsonl").read_text(encoding="utf-8")
    assert '"subject":"council"' in results and '"subject":"baseline"' in results
    assert '"model":"remote-a"' in results  # the calls really went through the endpoint
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert {"cache/cache.sqlite", "reports/baselines/secret.json"} <= written
    assert {f"reports/runs/{run_dir.name}/{n}" for n in ("manifest.json", "results.jsonl", "index.html")} <= written
    assert KEY_ENV in (run_dir / "manifest.json").read_text(encoding="utf-8")  # the variable's name, not its value

    assert leaks_in(tmp_path, key) == []
    for n in needles(key):
        assert n.decode() not in done.stdout and n.decode() not in done.stderr


def test_failing_endpoint_errors_do_not_carry_the_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key = fake_key()
    monkeypatch.setenv(KEY_ENV, key)
    base = f"http://127.0.0.1:{closed_port()}/v1"
    provider = OpenAICompatProvider(base, KEY_ENV, timeout=5, max_retries=1, backoff_base=0.01, backoff_max=0.02)
    assert provider.has_key

    async def call() -> None:
        try:
            await provider.chat("remote-a", [Message(role="user", content="Hi")], temperature=0.0, max_tokens=8, seed=1)
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as info:
        asyncio.run(call())
    assert "127.0.0.1" in str(info.value) and "remote-a" in str(info.value)
    chain: list[BaseException] = []
    exc: BaseException | None = info.value
    while exc is not None and exc not in chain:  # the exception, its cause and its context
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    text = "\n".join([*map(str, chain), *map(repr, chain), *traceback.format_exception(info.value), repr(provider)])
    for n in needles(key):
        assert n.decode() not in text

    # the same failure inside a run: the error lands in results.jsonl and the report, without the key
    clear_harness_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    settings = load_settings(
        None,
        base_url=base,
        api_key_env=KEY_ENV,
        models="remote-a",
        max_retries=0,
        request_timeout=5,
        cache_path=tmp_path / "cache.sqlite",
        reports_dir=tmp_path / "reports",
        rubric_scoring=False,
    )
    data = tmp_path / "secret.yaml"
    data.write_text(DATASET, encoding="utf-8")
    run = run_cases(settings, load_datasets(data), ["baseline"])
    write_report(run)
    (result,) = run.results
    assert result.status == "error" or result.transcript is not None and result.transcript.errors
    assert "127.0.0.1" in (run.run_dir / "results.jsonl").read_text(encoding="utf-8")
    assert leaks_in(tmp_path, key) == []


def test_manifest_hides_credentials_in_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A key written into an endpoint URL (user:key@host, ?api-key=) or a webhook URL's path is not copied
    into the settings that manifests and reports show."""
    key = fake_key()
    clear_harness_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    for url in (f"http://user:{key}@127.0.0.1:9/v1", f"http://127.0.0.1:9/v1?api-key={key}"):
        member = {"id": "own-endpoint", "provider": "openai", "model": "m", "base_url": url}
        settings = load_settings(
            None,
            base_url=url,
            models=[member],
            quality_webhook_url=f"https://hooks.example.com/services/T0/{key}",
        )
        public = settings.public_dict()
        assert public["base_url"] == "http://127.0.0.1:9/v1"
        assert public["models"][0]["base_url"] == "http://127.0.0.1:9/v1"
        assert public["quality_webhook_url"] == "https://hooks.example.com/***"
        for n in needles(key):
            assert n.decode() not in str(public)
        assert settings.base_url == url  # the provider itself still gets the URL as configured


HOSTILE_ANSWER = """```python
def double(x):
    import glob, os
    found = []
    for path in glob.glob("/proc/*/environ") + ["/proc/%d/environ" % os.getppid(), "/proc/1/environ"]:
        try:
            variables = open(path, "rb").read().decode("latin-1").split("\\0")
            found += [f"{path}: read {len(variables)}"] + [path + ":" + v for v in variables if "KEY" in v]
        except OSError as exc:
            found.append(path + ": " + type(exc).__name__)
    print("\\n".join(found))
    raise ValueError(" | ".join(found))
```"""
PYTHON_DATASET = """\
golden_datasets:
  - name: sandboxed
    queries:
      - id: p1
        query: "Write double(x)."
        expected:
          type: python
          function: double
          tests: |
            assert double(2) == 4
"""


def test_answer_code_reading_proc_environ_leaks_no_key(tmp_path: Path) -> None:
    """Issue 10 item 1, done-when: the answer code reads every /proc/*/environ (its parent's too);
    a secrets scan over everything the run wrote, and its console output, finds no key."""
    from tests.fault_server import FaultServer, ok

    key = fake_key()
    data = tmp_path / "sandboxed.yaml"
    data.write_text(PYTHON_DATASET, encoding="utf-8")
    env = harness_env()
    with FaultServer(default=ok(HOSTILE_ANSWER)) as server:
        env.update(
            {
                KEY_ENV: key,
                "HOME": str(tmp_path / "home"),
                "LLM_COUNCIL_API_KEY_ENV": KEY_ENV,
                "LLM_COUNCIL_BASE_URL": server.base_url,
                "LLM_COUNCIL_MODELS": "remote-a",
                "LLM_COUNCIL_MAX_RETRIES": "0",
                "LLM_COUNCIL_RUBRIC_SCORING": "false",
                "LLM_COUNCIL_CACHE_PATH": str(tmp_path / "cache" / "cache.sqlite"),
                "LLM_COUNCIL_REPORTS_DIR": str(tmp_path / "reports"),
            }
        )
        done = subprocess.run(
            [str(CLI), "run", "--data", str(data), "--dataset", "sandboxed", "--subjects", "baseline"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert any(r.headers.get("authorization") == f"Bearer {key}" for r in server.requests)  # the key was used
    assert done.returncode in (0, 1), done.stderr
    (run_dir,) = (tmp_path / "reports" / "runs").iterdir()
    results = (run_dir / "results.jsonl").read_text(encoding="utf-8")
    assert "ValueError" in results and "/environ: read" in results  # the hostile code really ran
    assert (run_dir / "index.html").exists()
    assert leaks_in(tmp_path, key) == []
    for n in needles(key):
        assert n.decode() not in done.stdout and n.decode() not in done.stderr
