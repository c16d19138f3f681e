"""Tests of harness.council."""
