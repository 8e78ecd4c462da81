"""TRT-LLM torch fallback for an NVFP4 KV cache."""
from . import unpack  # noqa: F401
from .worker import Fp4FallbackWorker  # noqa: F401
