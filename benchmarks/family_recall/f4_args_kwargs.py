"""*args / **kwargs carrying dtype or tensors into casts."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def upcast_all(*tensors, dtype):
    return [t.to(dtype) for t in tensors]


class KwargsBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self._cast_args = (torch.bfloat16,)
        self._cast_kwargs = {"dtype": torch.bfloat16, "non_blocking": True}
        self._move_kwargs = {"device": "cuda", "non_blocking": True}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache = pool.get_key_buffer(layer.layer_id).to(*self._cast_args)  # positive: f4 CL001 dtype via *args
        v_cache = pool.get_value_buffer(layer.layer_id).to(**self._cast_kwargs)  # positive: f4 CL001 dtype via **kwargs
        moved = pool.get_value_buffer(layer.layer_id).to(**self._move_kwargs)  # negative: kwargs only move device
        return k_cache, v_cache, moved

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kc, vc = upcast_all(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id), dtype=q.dtype)  # positive: f4 CL001 pool passed through *tensors to a casting helper
        new_k, new_v = upcast_all(k, v, dtype=q.dtype)  # negative: batch tensors
        return kc, vc, new_k, new_v

    def _convert(self, tensor, **kw):
        return tensor.to(**kw)

    def forward_idle(self, q, layer, forward_batch):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        out = self._convert(kbuf, dtype=torch.float16)  # positive: f4 CL001 dtype in kwargs to a method that casts
        keep = self._convert(kbuf, device=q.device)  # negative: device move through the same method
        return out, keep
