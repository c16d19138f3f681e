"""Tests of harness.providers."""
