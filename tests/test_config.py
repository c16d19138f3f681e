"""Configuration from YAML and LLM_COUNCIL_* variables, and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.config import load_settings

pytestmark = pytest.mark.usefixtures("clean_env")  # every test: no LLM_COUNCIL_* variable, a fresh folder


def test_defaults_are_the_embedded_council() -> None:
    s = load_settings()
    assert [(m.id, m.model, m.provider) for m in s.models] == [
        ("smollm2-precise", "smollm2-135m", "local"),
        ("smollm2-explainer", "smollm2-135m", "local"),
        ("gemma3", "gemma3-270m", "local"),
    ]
    assert s.role_spec("chairman").id == "smollm2-precise"
    assert s.role_spec("baseline").model == "smollm2-135m"
    assert s.quality_metrics is True and s.cache_mode == "readwrite"


def test_env_names_from_the_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_COUNCIL_QUALITY_METRICS", "false")
    monkeypatch.setenv("LLM_COUNCIL_MODELS", "smollm2,gemma3,smollm2")
    monkeypatch.setenv("LLM_COUNCIL_CHAIRMAN", "gemma3")
    s = load_settings()
    assert s.quality_metrics is False
    assert [m.id for m in s.models] == ["smollm2", "gemma3", "smollm2#3"]
    assert s.role_spec("chairman").model == "gemma3-270m"


def test_remote_models_need_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_COUNCIL_MODELS", "openai/gpt-4o,anthropic/claude-opus-4.5")
    with pytest.raises(ConfigError, match="base_url"):
        load_settings()
    monkeypatch.setenv("LLM_COUNCIL_BASE_URL", "http://127.0.0.1:9/v1")
    s = load_settings()
    assert {m.provider for m in s.models} == {"openai"}


def test_bad_env_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_COUNCIL_GROUNDING_THRESHOLD", "2.5")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "LLM_COUNCIL_GROUNDING_THRESHOLD" in str(err.value)
    assert "less than or equal to 1" in str(err.value)


def test_yaml_unknown_key_names_file_and_line(tmp_path: Path) -> None:
    cfg = tmp_path / "council-harness.yaml"
    cfg.write_text("seed: 3\ngrounding_treshold: 0.5\n")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert f"{cfg.name}:2" in str(err.value)
    assert "grounding_treshold" in str(err.value)


def test_yaml_members_and_bad_value(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "models:\n  - id: a\n    model: smollm2-135m\n  - id: b\n    model: gemma3-270m\n    temperature: 9\n"
    )
    with pytest.raises(ConfigError) as err:
        load_settings(cfg)
    assert "c.yaml:6" in str(err.value) and "temperature" in str(err.value)
    cfg.write_text("models:\n  - id: a\n    model: smollm2-135m\n  - id: a\n    model: gemma3-270m\n")
    with pytest.raises(ConfigError, match="unique"):
        load_settings(cfg)


def test_unknown_embedded_model_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("models:\n  - id: a\n    model: llama-70b\n")
    with pytest.raises(ConfigError, match="embedded model 'llama-70b' is unknown"):
        load_settings(tmp_path / "c.yaml")
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.yaml")


def test_overrides_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_COUNCIL_CACHE_MODE", "off")
    assert load_settings(cache_mode="replay").cache_mode == "replay"
    assert load_settings(cache_mode=None).cache_mode == "off"


def test_public_dict_has_no_key_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-123456789012345678901234")
    s = load_settings(base_url="http://127.0.0.1:9/v1")
    assert "SECRET" not in str(s.public_dict())
    assert s.public_dict()["api_key_env"] == "OPENAI_API_KEY"
