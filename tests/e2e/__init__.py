"""Whole runs on the embedded models (slow)."""
