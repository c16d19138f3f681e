"""Tests of harness.sandbox."""
