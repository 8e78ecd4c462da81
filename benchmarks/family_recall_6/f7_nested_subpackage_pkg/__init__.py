"""Two subpackages: mem/ (a block arena, re-exported by mem/__init__) and attn/ (uses it via `..mem`)."""
