"""TensorRT-LLM two-model speculative decoding: the drafter module holds the draft manager;
the layer_io module converts its layers."""
from .layer_io import LayerIO

__all__ = ["LayerIO"]
