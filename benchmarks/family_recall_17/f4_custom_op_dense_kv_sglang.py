"""sglang MUSA MLA: the widening is registered as a torch.library custom op (so it stays
opaque to torch.compile) and called on the pool layer every decode step."""
import torch

_DTYPES = (torch.bfloat16, torch.float16, torch.float32)


@torch.library.custom_op("sgl_fr17::dense_kv", mutates_args=())
def dense_kv(buf: torch.Tensor, dtype_code: int) -> torch.Tensor:
    return buf.to(_DTYPES[dtype_code])  # positive: f4 CL001 its only caller passes a whole pool layer


@dense_kv.register_fake
def _(buf, dtype_code):
    return torch.empty_like(buf, dtype=_DTYPES[dtype_code])  # negative: fake kernel, allocation only


class MusaMLABackend:
    def __init__(self, model_runner):
        self.code = _DTYPES.index(model_runner.dtype)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = dense_kv(pool.get_key_buffer(layer.layer_id), self.code)
        return self._mla(q, k_buf, layer)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        return self._mla(q, rows.to(q.dtype), layer)  # negative: this step's rows

    def _mla(self, q, k_buf, layer):
        return q
