"""Pipeline stage: stage.py keeps this stage's caches, transfer.py converts them."""
