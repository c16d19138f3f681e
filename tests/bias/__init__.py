"""Tests of harness.bias."""
