"""Tests of harness.data."""
