"""The CI workflow examples in ci/: valid YAML, and every command they run exists with those options."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from harness.cli import build_parser
from tests.paths import REPO

ROOT = REPO


def _commands() -> list[tuple[str, str]]:
    gh = yaml.safe_load((ROOT / "ci" / "github-actions.yml").read_text(encoding="utf-8"))
    gl = yaml.safe_load((ROOT / "ci" / "gitlab-ci.yml").read_text(encoding="utf-8"))
    out = [("github", step["run"]) for step in gh["jobs"]["golden"]["steps"] if "run" in step]
    out += [("gitlab", line) for line in gl["council-gate"]["script"]]
    return out


def test_workflows_have_the_gate_shape() -> None:
    gh = yaml.safe_load((ROOT / "ci" / "github-actions.yml").read_text(encoding="utf-8"))
    steps = gh["jobs"]["golden"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/cache@") for u in uses)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()"
    assert "reports/index.html" in upload["with"]["path"] and "summary.json" in upload["with"]["path"]
    summary = next(s for s in steps if "$GITHUB_STEP_SUMMARY" in s.get("run", ""))  # issue 30: the Markdown summary
    assert summary["if"] == "always()" and summary["run"] == 'cat reports/runs/*/summary.md >> "$GITHUB_STEP_SUMMARY"'
    comment = next(s for s in steps if s.get("run", "").startswith("gh pr comment"))
    assert comment["if"].endswith("github.event_name == 'pull_request'") and "GH_TOKEN" in comment["env"]
    assert gh["jobs"]["golden"]["permissions"]["pull-requests"] == "write"
    assert "reports/runs/*/summary.md" in upload["with"]["path"]
    gl = yaml.safe_load((ROOT / "ci" / "gitlab-ci.yml").read_text(encoding="utf-8"))["council-gate"]
    assert gl["artifacts"]["reports"]["junit"] == "reports/junit.xml"
    assert "reports/summary.md" in gl["artifacts"]["paths"] and gl["artifacts"]["when"] == "always"
    assert any("--markdown reports/summary.md" in line for line in gl["script"])
    assert ".council-cache/" in gl["cache"]["paths"]


@pytest.mark.parametrize(("where", "command"), _commands())
def test_every_command_exists(where: str, command: str, tmp_path: Path) -> None:
    argv = shlex.split(command)
    if argv[0] == "council-harness":
        build_parser().parse_args(argv[1:])  # SystemExit (a failed test) on an unknown command or option
    elif argv[0] == "pytest":
        # pytest itself parses the options (collection only, outputs redirected): exit 4 is a usage error
        args = [
            a.split("=")[0] + "=" + str(tmp_path / Path(a.split("=", 1)[1]).name) if "=" in a else a for a in argv[1:]
        ]
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode in (0, 5), f"{where}: {command}: {proc.stderr[-2000:]}"
    elif argv[:2] == ["pip", "install"]:
        extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "optional-dependencies"
        ]
        target = argv[-1]
        assert target.startswith(".["), target
        for extra in target[2:-1].split(","):
            assert extra in extras, f"{where}: no extra {extra!r}"
    elif argv[0] == "cat":  # the run's Markdown summary appended to the job's page
        assert argv[1:] == ["reports/runs/*/summary.md", ">>", "$GITHUB_STEP_SUMMARY"], command
    elif argv[:3] == ["gh", "pr", "comment"]:  # ... and posted on the pull request
        assert argv[-2:] == ["--body-file", "reports/runs/*/summary.md"], command
    else:
        pytest.fail(f"{where}: unexpected command {command!r}")
