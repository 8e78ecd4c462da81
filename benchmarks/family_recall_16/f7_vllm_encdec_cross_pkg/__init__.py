"""Encoder-decoder runner: runner.py owns kv_caches, cross.py converts the cross caches."""
