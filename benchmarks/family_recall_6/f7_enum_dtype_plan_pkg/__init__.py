"""KV formats as an Enum with dtype properties (formats.py); the planner calls plan (planner.py)."""
