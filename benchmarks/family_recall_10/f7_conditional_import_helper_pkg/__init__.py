"""Two implementations of upcast_cache (_triton.py, _torch.py), picked by try/except ImportError in impl.py."""
