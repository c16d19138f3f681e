"""Tests of harness.tier2."""
