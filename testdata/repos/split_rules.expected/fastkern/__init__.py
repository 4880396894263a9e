"""A kernel package whose translation rules live in per-platform modules."""
