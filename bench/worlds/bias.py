"""Bias worlds: cross-session bias records in seed 003's schema (ADR-018 v1.1).

One record per (session, reviewer, candidate model), field names exactly as the seed
gives them (schema "1.1.0"):

    schema_version, session_id, timestamp, consent_level, query_metadata
    {category, token_count_bucket, language}, reviewer_id, model_id, position,
    response_length_chars, score_value, score_scale, council_config_version, query_hash

Write ``world.records`` as JSONL (``worlds.common.write_jsonl``) and point the harness's
bias store (``LLM_COUNCIL_BIAS_STORE``) at it.

Score model (latent, then rounded and clipped to the "1-10" scale):

    score = 6 + session_effect + model_effect[model] + answer_effect[session, model]
              + reviewer_effect[reviewer] + position_effect[position]
              + length_slope * z(log length) + noise

    session_effect ~ N(0, 1) (query difficulty, shared by everything in the session)
    answer_effect  ~ N(0, 1) (quality of that model's answer in that session, seen by all
                              reviewers alike)
    noise          ~ N(0, 1) (per reviewer and answer)
    model_effect   : fixed per model, spread evenly over [-model_spread, +model_spread]

In the null worlds reviewer_effect = position_effect = length_slope = 0: no reviewer is
harsh or generous, position and length carry no score.  Each reviewer sees the answers
anonymized in its own random order (position = index in that order, 0-based by default,
``position_base=1`` for 1-based).  ``response_length_chars`` is a property of the answer
(the same for every reviewer), log-normal around 1,200 characters, independent of its score.

When ``peers_are_reviewers`` (the council's own members judge each other), the candidate
models are the reviewers and a reviewer never scores its own answer (self-exclusion): with
3 reviewers each session has 6 records (each reviewer scores the 2 others).  Otherwise the
reviewers are separate judges scoring every one of ``n_candidates`` models.

Timestamps: one session every ``spacing_minutes`` (default 60), the last one at ``now``
(default: the current UTC time, so the whole store lies inside the harness's 30-day /
100-session window; pass a fixed ``now`` for byte-reproducible output).  session_id is a
UUID4 drawn from ``rng``.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Optional, Sequence

import numpy as np

from .common import BIAS_FALSE_FLAG_MAX

SCHEMA_FIELDS = (
    "schema_version", "session_id", "timestamp", "consent_level", "query_metadata",
    "reviewer_id", "model_id", "position", "response_length_chars", "score_value",
    "score_scale", "council_config_version", "query_hash",
)
QUERY_METADATA_FIELDS = ("category", "token_count_bucket", "language")
CATEGORIES = ("coding", "reasoning", "math", "writing", "factual")
TOKEN_BUCKETS = ("0-100", "100-500", "500-1000", "1000+")
REVIEWER_NAMES = ("sim/alpha", "sim/bravo", "sim/charlie", "sim/delta", "sim/echo",
                  "sim/foxtrot", "sim/golf", "sim/hotel")


@dataclass
class BiasWorld:
    name: str
    #: the JSONL records, one dict per (session, reviewer, candidate), seed-003 schema
    records: list
    #: ground truth: reviewer effects (0 = unbiased), position effects, length slope,
    #: anomalous sessions, harsh/generous reviewers by id
    truth: dict
    #: what a correct flag must do in this world
    required: dict
    params: dict = field(default_factory=dict)

    @property
    def n_sessions(self) -> int:
        return len({r["session_id"] for r in self.records})

    def to_dict(self) -> dict:
        return {"name": self.name, "records": self.records, "truth": self.truth,
                "required": self.required, "params": self.params}


def _uuid4(rng) -> str:
    return str(uuid.UUID(bytes=rng.bytes(16), version=4))


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def bias_sessions(rng: np.random.Generator, n_sessions: int, reviewers: int = 3,
                  peers_are_reviewers: bool = True, n_candidates: Optional[int] = None,
                  reviewer_effects: Optional[Sequence[float]] = None,
                  position_effects: Optional[Sequence[float]] = None,
                  length_slope: float = 0.0, model_spread: float = 0.0,
                  anomaly: Optional[dict] = None, now: Optional[datetime] = None,
                  spacing_minutes: float = 60.0, position_base: int = 0,
                  consent_level: int = 1, name: str = "bias_sessions") -> BiasWorld:
    """General generator behind every bias world (see the module docstring).

    ``reviewer_effects``: additive score shift per reviewer (default all 0).
    ``position_effects``: additive shift per 0-based position (default all 0).
    ``length_slope``: score change per SD of log length (default 0).
    ``anomaly``: {'session': index, 'shift': float, 'reviewer': index or None} shifts every
    score of that session (or only that reviewer's scores in it) by ``shift``.
    """
    if reviewers < 2:
        raise ValueError("need at least 2 reviewers")
    if reviewers > len(REVIEWER_NAMES):
        raise ValueError("too many reviewers")
    rev_ids = list(REVIEWER_NAMES[:reviewers])
    if peers_are_reviewers:
        model_ids = list(rev_ids)
    else:
        nc = n_candidates or 4
        model_ids = [f"sim/model-{j + 1}" for j in range(nc)]
    n_models = len(model_ids)
    r_eff = np.zeros(reviewers) if reviewer_effects is None else np.asarray(reviewer_effects, float)
    n_pos = n_models - 1 if peers_are_reviewers else n_models
    p_eff = np.zeros(n_pos) if position_effects is None else np.asarray(position_effects, float)
    if len(r_eff) != reviewers or len(p_eff) != n_pos:
        raise ValueError("effect vectors of the wrong length")
    m_eff = (np.linspace(-model_spread, model_spread, n_models) if n_models > 1
             else np.zeros(n_models))
    now = now or datetime.now(timezone.utc)
    t0 = now - timedelta(minutes=spacing_minutes * (n_sessions - 1))

    records = []
    for s in range(n_sessions):
        sid = _uuid4(rng)
        ts = _iso(t0 + timedelta(minutes=spacing_minutes * s))
        qmeta = {"category": CATEGORIES[int(rng.integers(len(CATEGORIES)))],
                 "token_count_bucket": TOKEN_BUCKETS[int(rng.integers(len(TOKEN_BUCKETS)))],
                 "language": "en"}
        sess = rng.normal(0.0, 1.0)
        ans = rng.normal(0.0, 1.0, n_models)
        log_len = rng.normal(np.log(1200.0), 0.5, n_models)
        lengths = np.maximum(1, np.round(np.exp(log_len))).astype(int)
        zlen = (log_len - np.log(1200.0)) / 0.5
        for ri, rid in enumerate(rev_ids):
            cands = [j for j in range(n_models) if not (peers_are_reviewers and model_ids[j] == rid)]
            order = [cands[i] for i in rng.permutation(len(cands))]
            for pos, j in enumerate(order):
                latent = (6.0 + sess + m_eff[j] + ans[j] + r_eff[ri] + p_eff[pos]
                          + length_slope * zlen[j] + rng.normal(0.0, 1.0))
                if anomaly is not None and anomaly.get("session") % n_sessions == s and \
                        anomaly.get("reviewer") in (None, ri):
                    latent += anomaly.get("shift", 0.0)
                score = float(np.clip(np.round(latent), 1, 10))
                records.append({
                    "schema_version": "1.1.0",
                    "session_id": sid,
                    "timestamp": ts,
                    "consent_level": consent_level,
                    "query_metadata": dict(qmeta),
                    "reviewer_id": rid,
                    "model_id": model_ids[j],
                    "position": int(pos + position_base),
                    "response_length_chars": int(lengths[j]),
                    "score_value": score,
                    "score_scale": "1-10",
                    "council_config_version": "0.3.0",
                    "query_hash": None,
                })
    truth = {
        "reviewer_effects": {rid: float(e) for rid, e in zip(rev_ids, r_eff)},
        "harsh_reviewers": [rid for rid, e in zip(rev_ids, r_eff) if e < 0],
        "generous_reviewers": [rid for rid, e in zip(rev_ids, r_eff) if e > 0],
        "position_effects": [float(x) for x in p_eff],
        "position_bias": bool(np.any(p_eff != 0)),
        "length_slope": float(length_slope),
        "length_bias": bool(length_slope != 0),
        "model_effects": {mid: float(e) for mid, e in zip(model_ids, m_eff)},
        "anomalous_sessions": ([] if anomaly is None else [int(anomaly["session"] % n_sessions)]),
    }
    params = dict(n_sessions=n_sessions, reviewers=reviewers,
                  peers_are_reviewers=peers_are_reviewers, n_models=n_models,
                  model_spread=model_spread, position_base=position_base,
                  spacing_minutes=spacing_minutes)
    return BiasWorld(name=name, records=records, truth=truth, required={}, params=params)


def no_bias_sessions(rng: np.random.Generator, n_sessions: int, reviewers: int = 3,
                     peers_are_reviewers: bool = True, n_candidates: Optional[int] = None,
                     model_spread: float = 0.0, **kw) -> BiasWorld:
    """No bias of any kind.

    World: reviewers score anonymized answers with no reviewer harshness/generosity, no
    position effect and no length effect (``bias_sessions`` with every effect 0).  With
    ``peers_are_reviewers`` (default) the reviewers are the judged models and never score
    themselves.  ``model_spread`` > 0 makes the models differ in true quality (fixed
    effects in [-spread, +spread]): still NO reviewer is harsh, but with self-exclusion a
    reviewer that is itself the best model only sees weaker answers, so its raw mean is
    lower; a rule must compare reviewers on the same answers to stay calibrated.
    Ground truth: no reviewer harsh or generous, no position bias, no length bias.
    Required: each flag (reviewer harsh/generous - any reviewer, family-wise; position;
    verbosity/length) fires in <= 5% of such worlds, at any n_sessions (10, 20, 30, 50,
    100), with 3 reviewers, peers or not, model_spread 0 or 1.
    """
    w = bias_sessions(rng, n_sessions, reviewers, peers_are_reviewers, n_candidates,
                      model_spread=model_spread, name="no_bias", **kw)
    w.required = {"reviewer_flag_max": BIAS_FALSE_FLAG_MAX, "position_flag_max": BIAS_FALSE_FLAG_MAX,
                  "length_flag_max": BIAS_FALSE_FLAG_MAX, "anomaly_flag_max": BIAS_FALSE_FLAG_MAX}
    return w


def anomaly_null(rng: np.random.Generator, n_sessions: int, reviewers: int = 3,
                 peers_are_reviewers: bool = True, **kw) -> BiasWorld:
    """Stationary sessions with no anomaly (n_sessions = 10, 30, 100).

    World: every session is an independent draw from the same no-bias process (no drift,
    no outlier session, no outlier reviewer-in-session); sessions are evenly spaced.
    Ground truth: no anomalous session.
    Required: the anomaly flag (any session or reviewer flagged) fires in <= 5% of such
    worlds at EVERY n_sessions - the rate must not grow with n (issue 27 measured 0.4% /
    19% / 63% at 10 / 30 / 100 sessions for the seed's threshold).
    """
    w = bias_sessions(rng, n_sessions, reviewers, peers_are_reviewers, name="anomaly_null", **kw)
    w.required = {"anomaly_flag_max": BIAS_FALSE_FLAG_MAX, "reviewer_flag_max": BIAS_FALSE_FLAG_MAX}
    return w


def harsh_reviewer_sessions(rng: np.random.Generator, n_sessions: int, reviewers: int = 3,
                            peers_are_reviewers: bool = True, harshness: float = -1.5,
                            harsh_index: int = 0, **kw) -> BiasWorld:
    """One truly harsh reviewer (default -1.5 points on every score it gives).

    World: as ``no_bias_sessions`` but reviewer ``harsh_index`` subtracts 1.5 from its
    latent score (after rounding and clipping to 1-10 the realised shift is about -1.49;
    selfcheck.py measures it).  Ground truth: exactly that reviewer is harsh
    (``truth['harsh_reviewers']``); no other reviewer is biased.
    Required: power, stated - a calibrated reviewer flag should flag the harsh reviewer
    as harsh in >= 80% of worlds once n_sessions >= 20 (the seed's minimum for
    aggregation); the reference rule in README (within-answer contrast, session-clustered
    t-test, Bonferroni over reviewers, alpha 0.05) reaches ~100% at 20 sessions.
    Caution: reviewer effects are identified only relative to one another (on the answers
    they share, the two unbiased peers score +1.5 above the harsh one: their within-answer
    contrast is +0.75).  A rule that then also calls them "generous" is wrong in the
    absolute sense, but this world does not bound that rate; the <= 5% false-flag
    requirement is tested in the no-bias worlds.
    """
    r_eff = np.zeros(reviewers)
    r_eff[harsh_index] = harshness
    w = bias_sessions(rng, n_sessions, reviewers, peers_are_reviewers,
                      reviewer_effects=r_eff, name="harsh_reviewer", **kw)
    w.required = {"harsh_flag_power_min_at_20_sessions": 0.80,
                  "other_reviewers": "not bounded here (relative identification)"}
    return w


def anomaly_world(rng: np.random.Generator, n_sessions: int, shift: float = -4.0,
                  session: int = -1, reviewer: Optional[int] = 0, reviewers: int = 3,
                  peers_are_reviewers: bool = True, **kw) -> BiasWorld:
    """One anomalous session (power check for the anomaly flag).

    World: as ``anomaly_null`` but in one session (default the latest) one reviewer
    (default reviewer 0; None = every reviewer) shifts every score by ``shift`` (default
    -4 points).  Ground truth: ``truth['anomalous_sessions']`` holds that session's index
    (sessions are in time order).  The seed does not state what the anomaly detector
    targets, so no power floor is required; report the detection rate.
    """
    w = bias_sessions(rng, n_sessions, reviewers, peers_are_reviewers,
                      anomaly={"session": session, "shift": shift, "reviewer": reviewer},
                      name="anomaly", **kw)
    w.required = {"detection": "power (report)"}
    return w


BIAS_WORLDS = {
    "no_bias": no_bias_sessions,
    "anomaly_null": anomaly_null,
    "harsh_reviewer": harsh_reviewer_sessions,
    "anomaly": anomaly_world,
}
