"""The self-contained HTML report of a run: one offline file, inert whatever the models wrote.

* Everything the page shows comes from :func:`harness.report.view.build_view`; the jinja2 template
  only lays it out, with autoescape on everywhere (model output is never marked safe).
* CSS, charts (inline SVG) and the one script are inside the file; nothing is fetched.
* A strict Content-Security-Policy allows no source but inline styles, ``data:`` images and this
  module's script, identified by its sha256 hash (computed here, so the static file needs no nonce).
  Injected markup could neither run a script nor load anything, even if escaping ever failed.
* Every text the template prints goes through :func:`shown` (the environment's ``finalize``, so no
  field can forget it): texts longer than :data:`harness.common.visible.DISPLAY_LIMIT` characters are
  cut with a note saying how much was cut and that the full text is in ``results.jsonl``, and
  control, bidirectional and invisible format characters show as ``⟨U+202E⟩``
  (:mod:`harness.common.visible`). The result is still plain text, escaped by autoescape afterwards.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from harness.common.fsutil import atomic_write_text
from harness.common.gcpause import gc_paused
from harness.common.visible import for_display
from harness.gate.baselines import Comparison
from harness.gate.rundiff import RunDiff
from harness.report.diff_view import diff_view
from harness.report.view import build_view
from harness.run.runs import Run
from harness.stats import PredictionReport

if TYPE_CHECKING:
    from harness.gate.regression import GateOutcome
    from harness.gate.run_verdicts import RunVerdicts


def shown(value: object) -> object:
    """What the template prints for ``value``: text cut and with control characters visible
    (:func:`harness.common.visible.for_display`); markup this module made (chart SVG, the script) and
    non-text values as they are."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return for_display(value)
    return value


_env = Environment(
    loader=PackageLoader("harness.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=shown,
)

#: The report's only script: case filters, sorting by a subject's status or score, matrix pages of
#: ``PAGE_ROWS`` rows, anchor links that open their case, expand/collapse all.
#: It reads ``data-*`` flags the view computed; it never reads or writes model text.
SCRIPT = """
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll("#matrix tbody tr"));
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[data-filter]"));
  var search = document.getElementById("case-search");
  var shown = document.getElementById("shown-count");
  var pager = document.getElementById("pager");
  var perPage = pager ? parseInt(pager.dataset.pageRows, 10) || 100 : rows.length;
  var page = 0;
  var matching = rows;
  function paint() {
    var pages = Math.max(1, Math.ceil(matching.length / perPage));
    page = Math.min(Math.max(page, 0), pages - 1);
    rows.forEach(function (row) { row.hidden = true; });
    matching.slice(page * perPage, (page + 1) * perPage).forEach(function (row) { row.hidden = false; });
    if (pager) {
      pager.hidden = pages < 2;
      document.getElementById("page-info").textContent = "page " + (page + 1) + " of " + pages;
      document.getElementById("page-prev").disabled = page === 0;
      document.getElementById("page-next").disabled = page >= pages - 1;
    }
  }
  function apply() {
    var active = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.dataset.filter; });
    var q = search ? search.value.trim().toLowerCase() : "";
    matching = rows.filter(function (row) {
      return active.every(function (f) { return row.dataset[f] === "1"; }) &&
        (q === "" || row.dataset.search.indexOf(q) !== -1);
    });
    page = 0;
    if (shown) { shown.textContent = matching.length + " of " + rows.length + " cases shown"; }
    paint();
  }
  if (pager) {
    document.getElementById("page-prev").addEventListener("click", function () { page -= 1; paint(); });
    document.getElementById("page-next").addEventListener("click", function () { page += 1; paint(); });
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  if (search) { search.addEventListener("input", apply); }
  var sorter = document.getElementById("case-sort");
  var body = document.querySelector("#matrix tbody");
  var original = rows.slice();
  function value(row, i) {
    var text = (row.dataset.sort || "").split("|")[i];
    return text === undefined || text === "" ? null : parseFloat(text);
  }
  if (sorter && body) {
    sorter.addEventListener("change", function () {
      var opt = sorter.options[sorter.selectedIndex];
      if (sorter.value === "") {
        rows = original.slice();
      } else {
        var i = parseInt(sorter.value, 10);
        var sign = opt.dataset.descending === "1" ? -1 : 1;
        rows = original.slice().sort(function (a, b) {
          var x = value(a, i), y = value(b, i);
          if (x === null || y === null) { return (x === null) - (y === null); }
          return sign * (x - y);
        });
      }
      rows.forEach(function (row) { body.appendChild(row); });
      apply();
    });
  }
  function openHash() {
    var id = window.location.hash.slice(1);
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === "DETAILS") { target.open = true; }
  }
  window.addEventListener("hashchange", openHash);
  openHash();
  document.querySelectorAll("button[data-details]").forEach(function (button) {
    button.addEventListener("click", function () {
      var open = button.dataset.details === "open";
      document.querySelectorAll("details.case").forEach(function (d) { d.open = open; });
    });
  });
  apply();
});
"""


def script_hash(script: str) -> str:
    """The CSP source expression of an inline script: ``'sha256-<base64 digest of its UTF-8 text>'``."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(script: str = SCRIPT) -> str:
    """The report's policy: nothing loads, only inline styles, ``data:`` images and ``script`` (by hash) run."""
    return (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src {script_hash(script)}; base-uri 'none'; form-action 'none'"
    )


def render_run(
    run: Run,
    *,
    prediction: PredictionReport | None = None,
    comparison: Comparison | Sequence[Comparison] | None = None,
    diff: RunDiff | None = None,
    gate: GateOutcome | None = None,
    verdicts: RunVerdicts | None = None,
) -> str:
    """The report's HTML text.

    Args:
        run: the run read back from disk (:func:`harness.run.runs.load_run`).
        prediction: the >15% verdicts (:func:`harness.stats.evaluate_prediction`): adds the prediction panel.
        comparison: the run compared with its baseline (:func:`harness.gate.baselines.compare`): adds regression
            counts to the gate banner and the delta column to the case matrix.
        diff: the run compared with an earlier run (:func:`harness.gate.rundiff.diff_runs`): adds the
            "what changed" section.
        gate: the gate outcome under the config's rule (:func:`harness.gate.regression.gate_outcome`), for the
            banner; default: the outcome under the default rule (every failure counts).
        verdicts: the run's verdicts as finishing composed them (:func:`harness.gate.run_verdicts.run_verdicts`):
            the arms and modes panels show them (none without; see :func:`harness.report.view.build_view`).

    The same inputs give byte-identical output (charts are deterministic, nothing reads the clock).
    """
    with gc_paused():  # a 10,000-result view is millions of live objects: see harness.common.gcpause
        view = build_view(run, prediction=prediction, comparison=comparison, gate=gate, verdicts=verdicts)
        template = _env.get_template("report.html.j2")
        changes = diff_view(diff) if diff is not None else None
        # SCRIPT is this module's constant, not data: it is the one thing inserted unescaped besides chart SVG.
        return template.render(v=view, changes=changes, csp=content_security_policy(SCRIPT), script=Markup(SCRIPT))


def write_report(
    run: Run,
    path: Path | None = None,
    *,
    prediction: PredictionReport | None = None,
    comparison: Comparison | Sequence[Comparison] | None = None,
    diff: RunDiff | None = None,
    gate: GateOutcome | None = None,
    verdicts: RunVerdicts | None = None,
) -> Path:
    """Write ``index.html`` in the run folder (or ``path``) atomically and return its path.

    Args:
        run: the run to report.
        path: where to write; default ``<run_dir>/index.html``.
        prediction, comparison, diff, gate, verdicts: as for :func:`render_run`.
    """
    out = Path(path) if path else run.run_dir / "index.html"
    atomic_write_text(
        out, render_run(run, prediction=prediction, comparison=comparison, diff=diff, gate=gate, verdicts=verdicts)
    )
    return out
