"""A module-level pool stack (ctx.py) pushed by the runner module and read by the backend module."""
