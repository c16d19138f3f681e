"""Tests of harness.common."""
