"""Hypothesis property tests against the reference oracle."""
