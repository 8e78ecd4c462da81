"""castlint: find and repair hidden whole-pool dtype casts in LLM inference engines."""

__version__ = "0.1.0"
