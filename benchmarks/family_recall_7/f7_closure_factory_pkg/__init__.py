"""f7: reader closures made in factory.py capture the pool; backend.py calls them."""
from .backend import ClosureBackend
from .factory import make_reader, make_row_reader
