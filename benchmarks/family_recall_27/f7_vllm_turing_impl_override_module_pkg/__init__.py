from .base_impl import TritonImplBase
from .turing_impl import TuringTritonImpl


def get_impl_cls(device_capability):
    return TuringTritonImpl if device_capability < (8, 9) else TritonImplBase
