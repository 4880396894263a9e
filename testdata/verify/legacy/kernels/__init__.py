"""A small package of legacy custom-call lowering rules."""
