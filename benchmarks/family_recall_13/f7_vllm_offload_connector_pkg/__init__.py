"""vLLM style: an offloading connector split over modules."""
from .connector import OffloadConnectorWorker

__all__ = ["OffloadConnectorWorker"]


CONNECTOR_NAME = "OffloadConnectorWorker"


def build_worker(vllm_config):
    return OffloadConnectorWorker(vllm_config)


def supports_hma():
    return False


def role_names():
    return ("worker",)
