"""Datasets: golden cases and suites from YAML with file:line errors, the expected-answer block, the answer-format
instruction, dataset import and validation.
"""
