"""vLLM v1 KV connector with its staging helpers in a sibling module."""

from .connector import StagingConnector

__all__ = ["StagingConnector"]
