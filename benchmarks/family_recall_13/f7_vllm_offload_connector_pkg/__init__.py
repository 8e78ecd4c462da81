"""vLLM style: an offloading connector split over modules."""
from .connector import OffloadConnectorWorker

__all__ = ["OffloadConnectorWorker"]
