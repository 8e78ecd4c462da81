"""Reader functions registered by format in readers.py, looked up in attention.py (lmdeploy)."""
