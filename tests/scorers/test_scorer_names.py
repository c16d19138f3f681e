"""Code comes from configuration, not from data (issue 25 item 3): a dataset names scorers the config
declares or installed entry points, by name; ``validate`` imports nothing a dataset names and checks
that each named scorer exists; a broken entry point fails ``validate``; an installed entry point runs
only where it is named."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.cli_env import CLI, harness_env, run_pytest

#: a module whose import leaves a mark: importing it is what a data file must never cause
MARKING = """
from pathlib import Path
Path(__file__).with_name("imported.txt").write_text("imported")

def score(*, case, transcript):
    return 1.0
"""


def _dataset(folder: Path, scorers: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "g.yaml"
    path.write_text(
        "golden_datasets:\n  - name: g\n    scorers:\n" + scorers + "    queries:\n      - {id: a, query: q}\n"
    )
    return path


def _entry_point(folder: Path, dist: str, name: str, ref: str) -> None:
    """A real installed distribution's metadata (what pip writes): ``<dist>-1.0.dist-info``."""
    info = folder / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[council_harness.scorers]\n{name} = {ref}\n")


def _mods_env(tmp_path: Path) -> dict[str, str]:
    """The environment without the harness's variables, ``tmp_path/mods`` first on the import path."""
    return harness_env(PYTHONPATH=os.pathsep.join([str(tmp_path / "mods"), os.environ.get("PYTHONPATH", "")]))


def _validate(tmp_path: Path, *args: str, config: str = "") -> subprocess.CompletedProcess[str]:
    (tmp_path / "council-harness.yaml").write_text(config or "seed: 1\n")
    env = _mods_env(tmp_path)
    return subprocess.run([*CLI, "validate", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_a_dataset_naming_modules_is_rejected_without_importing_them(tmp_path: Path) -> None:
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "usc_mark.py").write_text(MARKING)
    data = _dataset(tmp_path / "golden", "      - os:system\n      - builtins:exec\n      - usc_mark:score\n")
    proc = _validate(tmp_path, str(data))
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    for line, name in ((4, "os:system"), (5, "builtins:exec"), (6, "usc_mark:score")):
        assert (
            f"{data}:{line}: 'scorers': unknown scorer {name!r}; a dataset may name only a scorer the config's "
            "'scorers:' declares or an installed council_harness.scorers entry point"
        ) in out, out
    assert "known: none" in out
    assert not (tmp_path / "mods" / "imported.txt").exists(), "validate imported a module a dataset named"
    assert "Traceback" not in out


def test_a_dataset_may_name_what_the_config_declares(tmp_path: Path) -> None:
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "usc_mark.py").write_text(MARKING)
    data = _dataset(tmp_path / "golden", "      - usc_mark:score\n")
    proc = _validate(tmp_path, str(data), config="scorers: [usc_mark:score]\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok: 1 file(s), 1 dataset(s), 1 case(s)" in proc.stdout
    assert (tmp_path / "mods" / "imported.txt").exists()  # the config's entry is code the user chose


def test_a_broken_entry_point_fails_validate_where_it_is_named(tmp_path: Path) -> None:
    (tmp_path / "mods").mkdir()
    _entry_point(tmp_path / "mods", "usc_broken", "broken", "usc_no_such_module:score")
    data = _dataset(tmp_path / "golden", "      - broken\n")
    # named by a dataset: an error at the dataset's line
    proc = _validate(tmp_path, str(data))
    assert proc.returncode != 0
    assert (
        f"{data}:4: 'scorers': entry point 'broken' of the council_harness.scorers group is broken: "
        "scorer 'usc_no_such_module:score': cannot import module 'usc_no_such_module'"
    ) in proc.stderr, proc.stderr
    # named by the config: a configuration error at the config's line
    proc = _validate(tmp_path, str(data), config="seed: 1\nscorers: [broken]\n")
    assert proc.returncode != 0
    assert "council-harness.yaml:2" in proc.stdout + proc.stderr
    assert "entry point 'broken' of the council_harness.scorers group is broken" in proc.stdout + proc.stderr
    # installed but named by nobody: nothing runs it, nothing to report
    other = _dataset(tmp_path / "other", "      []\n")
    proc = _validate(tmp_path, str(other))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_pytest_golden_rejects_an_unknown_scorer_name_without_importing_it(tmp_path: Path) -> None:
    """The pytest plugin checks the names like ``validate`` and ``run`` do, before any case runs."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "usc_mark.py").write_text(MARKING)
    _dataset(tmp_path / "golden", "      - usc_mark:score\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "council-harness.yaml").write_text("seed: 1\n")
    env = _mods_env(tmp_path)
    proc = run_pytest(
        tmp_path, "-m", "golden", "--collect-only", "-q", "--harness-subjects", "baseline", "golden", env=env
    )
    assert proc.returncode != 0
    assert "unknown scorer 'usc_mark:score'" in proc.stdout, proc.stdout + proc.stderr
    assert not (tmp_path / "mods" / "imported.txt").exists()
