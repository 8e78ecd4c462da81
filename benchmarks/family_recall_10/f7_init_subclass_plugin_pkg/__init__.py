"""lmdeploy-style impls registered by __init_subclass__(kind=...) in base.py, defined in impls.py, built in backend.py."""
