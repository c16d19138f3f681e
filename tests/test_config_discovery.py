"""Config discovery (issue 30 item 4): ``council-harness.yaml`` or ``pyproject.toml``'s ``[tool.council-harness]``,
found from the working directory upward; the nearest folder wins, and in one folder the YAML file."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.config import discover_config, load_settings
from tests.cli_env import clear_harness_env

PYPROJECT = '[project]\nname = "x"\n\n[tool.council-harness]\nrepeats = 3\nreports_dir = "out"\n'


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_harness_env(monkeypatch)


def test_a_yaml_file_in_a_parent_folder_is_found_and_its_paths_are_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "council-harness.yaml").write_text("repeats: 2\nreports_dir: build/reports\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    settings = load_settings()
    assert settings.repeats == 2
    assert settings.reports_dir == tmp_path.resolve() / "build" / "reports"


def test_the_working_directory_keeps_its_relative_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "council-harness.yaml").write_text("reports_dir: r\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings().reports_dir == Path("r")


def test_pyproject_table_is_read_with_file_and_line_in_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    settings = load_settings()
    assert settings.repeats == 3 and settings.reports_dir == tmp_path.resolve() / "out"
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace("repeats = 3", "repeats = 0"))
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert f"{tmp_path.resolve() / 'pyproject.toml'}:5: 'repeats'" in str(err.value)


def test_the_nearest_folder_wins_and_yaml_before_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "council-harness.yaml").write_text("repeats: 5\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text(PYPROJECT)
    monkeypatch.chdir(inner)
    assert load_settings().repeats == 3  # the nearer pyproject.toml
    (inner / "council-harness.yaml").write_text("repeats: 7\n")
    assert load_settings().repeats == 7  # in one folder the YAML file wins
    (inner / "council-harness.yaml").unlink()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no table: skipped, the parent's YAML
    assert load_settings().repeats == 5


def test_an_explicit_config_and_the_variable_win_over_discovery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "council-harness.yaml").write_text("repeats: 5\n")
    other = tmp_path / "other.yaml"
    other.write_text("repeats: 9\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings(other).repeats == 9
    monkeypatch.setenv("COUNCIL_HARNESS_CONFIG", str(other))
    assert load_settings().repeats == 9


def test_nothing_found_is_the_defaults_and_bad_toml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.council-harness\nrepeats = 1\n")
    with pytest.raises(ConfigError) as err:
        discover_config(tmp_path)
    assert str(err.value).startswith(f"{tmp_path / 'pyproject.toml'}: not valid TOML")
