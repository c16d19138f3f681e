"""Verdicts over a run's results: stored baselines and the regression gate, the >15% prediction, the arms' verdicts and
their paired statistics, run diffs, judge validity.
"""
