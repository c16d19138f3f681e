"""Tests of harness.scorers."""
