"""f7: a pool module (store.py) with a converting accessor (CL004) and a raw one used by backend.py."""
from .backend import StoreBackend
from .store import ConvertingStore
