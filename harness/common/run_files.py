"""The names of the files a run folder holds (``reports/runs/<run-id>/``).

A ground-floor module, so the run store (:mod:`harness.run.runs`) and expert review
(:mod:`harness.run.expert_review`) name the same files without importing each other.
"""

from __future__ import annotations

#: one JSON case result per line, appended as cases finish
RESULTS = "results.jsonl"
#: the run's manifest (settings, versions, start time, datasets)
MANIFEST = "manifest.json"
#: the expert-review verdicts recorded for this run
REVIEWS = "reviews.json"
#: the run's verdicts as finishing composed them (``gate/run_verdicts``), read back by the report's views
VERDICTS = "verdicts.json"
