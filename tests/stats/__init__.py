"""Tests of harness.gate.regression."""
