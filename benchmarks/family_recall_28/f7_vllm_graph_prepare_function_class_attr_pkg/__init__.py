"""vLLM FULL cudagraph wrapper package: a function from static_inputs.py is assigned as a method in the class body."""
from .wrapper import DenseKVCUDAGraphWrapper

__all__ = ["DenseKVCUDAGraphWrapper"]
