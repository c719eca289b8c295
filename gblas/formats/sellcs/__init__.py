"""Sell-C-σ: chunks of C rows sorted by length within windows of σ (see container.py)."""
