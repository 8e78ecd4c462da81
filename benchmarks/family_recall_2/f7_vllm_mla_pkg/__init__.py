from .common import LatentCommonImpl
from .triton_impl import LatentTritonImpl
