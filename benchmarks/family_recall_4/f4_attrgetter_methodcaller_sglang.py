"""operator.attrgetter and methodcaller reach the pool and its accessors."""
from operator import attrgetter, methodcaller

import torch

_pool_of = attrgetter("token_to_kv_pool")
_runner_pool = attrgetter("runner.token_to_kv_pool")
_scale_of = attrgetter("k_scale")
_buffers_of = attrgetter("k_buffer", "v_buffer")


class GetterBackend:
    def __init__(self, model_runner):
        self.runner = model_runner
        self.kernel = model_runner.attn_kernels.extend

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = _pool_of(forward_batch)
        read_v = methodcaller("get_value_buffer", layer.layer_id)
        vb = read_v(pool).to(q.dtype)  # positive: f4 CL001 methodcaller of the value accessor on the pool
        kb = _runner_pool(self).get_key_buffer(layer.layer_id)
        kb = kb.half()  # positive: f4 CL001 dotted attrgetter reaches the runner's pool
        sc = _scale_of(layer)
        if sc is not None:
            sc = sc.to(q.dtype)  # negative: per-layer scale
        return self.kernel(q, kb, vb, sc)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = _pool_of(forward_batch)
        keys, values = _buffers_of(pool)
        vv = values[layer.layer_id - pool.start_layer].float()  # positive: f4 CL001 multi-attrgetter returns the per-layer buffer lists
        rows = methodcaller("get_key_buffer", layer.layer_id)(pool)[forward_batch.out_cache_loc].half()  # negative: gathered rows
        as_half = methodcaller("half")
        qh = as_half(q)  # negative: batch q through methodcaller
        return vv, rows, qh


_seq_lens_of = attrgetter("seq_lens")


def plan_lengths(forward_batch):
    lens = _seq_lens_of(forward_batch)
    return methodcaller("to", torch.int32)(lens)  # negative: sequence lengths through methodcaller
