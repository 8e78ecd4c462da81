"""Free helper functions over a sglang pool."""
import torch

from sglang.srt.layers.quantization.fp8_kernel import batched_dequantize


def whole_latent(pool, layer):
    return pool.get_key_buffer(layer.layer_id)


def live_latent(pool, layer, loc):
    return pool.get_key_buffer(layer.layer_id)[loc]


def upcast_layer(pool, layer_id, dtype):
    return pool.get_value_buffer(layer_id).to(dtype)  # positive: f7 CL001 helper converts a whole layer


def dequant_layer(pool, layer_id, scale):
    return batched_dequantize(pool.get_key_buffer(layer_id), scale)  # positive: f7 CL004 dequantize helper over the whole layer
