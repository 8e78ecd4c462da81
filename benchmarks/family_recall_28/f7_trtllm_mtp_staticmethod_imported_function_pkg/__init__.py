"""TensorRT-LLM MTP worker package: a function from kv_access.py becomes a staticmethod of the worker class."""
from .mtp_worker import MTPWorker

__all__ = ["MTPWorker"]
