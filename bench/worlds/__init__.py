"""Blind, seeded simulation worlds for the harness's statistical decisions.

Every generator is a pure function of a ``numpy.random.Generator`` and its parameters
(the bias worlds additionally stamp timestamps relative to ``now``, default the current
time; pass ``now=`` for byte-identical output).  See README.md for the ground truths and
the rates a correct decision rule must keep.
"""
from .common import (THRESHOLD, VERDICT_LEVEL, GATE_FALSE_ALARM_MAX, BIAS_FALSE_FLAG_MAX,
                     RUBRIC_TOLERANCE, mc_se, mc_upper_limit, worlds_for_margin,
                     wilson_interval, to_plain, write_jsonl)
from .gate import (GateCase, GateWorld, null_world, collapse_world, broad_drop_world,
                   deterministic_world, DETERMINISTIC_CHANGES, GATE_WORLDS)
from .verdict import (PairedWorld, binary_boundary, scores_boundary, zero_inflated,
                      near_ceiling, heavy_tailed, power_world, reference_power,
                      n_for_power, VERDICT_WORLDS)
from .bias import (BiasWorld, SCHEMA_FIELDS, QUERY_METADATA_FIELDS, bias_sessions,
                   no_bias_sessions, anomaly_null, harsh_reviewer_sessions, anomaly_world,
                   BIAS_WORLDS)

__all__ = [name for name in dir() if not name.startswith("_")]
