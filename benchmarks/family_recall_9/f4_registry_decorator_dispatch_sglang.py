"""Converters registered into a class-level dict by a classmethod decorator, dispatched by format."""
import torch


class FormatDispatchBackend:
    converters = {}

    @classmethod
    def register(cls, fmt):
        def deco(fn):
            cls.converters[fmt] = fn
            return fn

        return deco

    def __init__(self, model_runner):
        self.kv_fmt = "fp8_e4m3" if model_runner.kv_cache_dtype == torch.float8_e4m3fn else "int8"

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        dense = self.converters[self.kv_fmt](pool.get_key_buffer(layer.layer_id))
        lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        return q, dense, lens


@FormatDispatchBackend.register("fp8_e4m3")
def _fp8_to_bf16(buf):
    return buf.to(torch.bfloat16)  # positive: f4 CL001 registered converter only given pool key buffers


@FormatDispatchBackend.register("int8")
def _int8_to_half(buf):
    return buf.half()  # positive: f4 CL001 registered converter only given pool key buffers
