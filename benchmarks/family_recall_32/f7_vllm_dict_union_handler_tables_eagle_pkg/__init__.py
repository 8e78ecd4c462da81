"""vLLM EAGLE proposer: target-cache handlers from two tables in handlers.py merged with dict | dict in proposer.py."""
