from .graph_runner import HoldingGraphRunner
from .backend import ReplayBackend
