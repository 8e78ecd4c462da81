# sglang Ascend NPU backend: the KV read is a functools.singledispatch function dispatched on the pool's
# class; the MLA FP8 pool (no FP8 latent in the NPU MLA op) is registered to a dense read.
import functools

import torch


class AscendTokenToKVPool:
    pass


class AscendMLAFp8TokenToKVPool(AscendTokenToKVPool):
    pass


@functools.singledispatch
def read_layer(pool, layer_id: int, dtype: torch.dtype, loc=None):
    return pool.get_key_buffer(layer_id)[loc].to(dtype)  # negative: rows of the batch


@read_layer.register
def _(pool: AscendMLAFp8TokenToKVPool, layer_id: int, dtype: torch.dtype, loc=None):
    return pool.get_key_buffer(layer_id).to(dtype)  # positive: f4 CL001 whole per-layer latent buffer, through the dispatch on the pool class


class AscendAttnBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = read_layer(self.pool, layer.layer_id, q.dtype, forward_batch.out_cache_loc)
        return self.npu_mla_decode(q, kv, forward_batch.seq_lens.to("cpu"))  # negative: lengths to the host
