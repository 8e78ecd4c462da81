"""f7: context managers in lease.py yield pool layers (or rows); backend.py converts inside the with-block."""
from .backend import LeaseBackend
from .pool import LeasePool
