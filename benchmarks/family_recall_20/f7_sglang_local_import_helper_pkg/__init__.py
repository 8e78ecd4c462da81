"""sglang-style package: the backend imports its widening helper lazily, inside the per-step method."""
