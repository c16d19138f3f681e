"""Tests of harness.report."""
