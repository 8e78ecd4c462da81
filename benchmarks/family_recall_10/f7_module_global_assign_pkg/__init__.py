"""state.py declares POOL = None; runner.py assigns state.POOL from outside; attn.py reads state.POOL."""
