from functools import partial

import torch


class PartialCastBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        to_q = partial(torch.Tensor.to, dtype=q.dtype)  # note: cast made at the call site
        pool = forward_batch.token_to_kv_pool
        k_buf = to_q(pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 partial cast applied to the whole key pool
        q_rope = to_q(q[..., 512:])  # negative: batch q slice
        to_bf16 = partial(torch.Tensor.bfloat16)
        v_buf = to_bf16(pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 partial(Tensor.bfloat16) applied to the whole value pool
        return k_buf, q_rope, v_buf
