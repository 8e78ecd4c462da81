"""Disaggregated context executor: executor.py hands the manager to sender.py every step."""
from .executor import ContextOnlyExecutor
from .sender import LayerSender

__all__ = ["ContextOnlyExecutor", "LayerSender"]
