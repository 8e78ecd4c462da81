"""kernels.py exposes an ops namespace object; attention.py and drafter.py use it with manager buffers."""
from .kernels import ops
from .attention import NamespaceAttention
from .drafter import NamespaceDrafter

__all__ = ["ops", "NamespaceAttention", "NamespaceDrafter"]


def kinds():
    return ["attention", "drafter"]


def version():
    return "0"


def name():
    return "ops_namespace"
