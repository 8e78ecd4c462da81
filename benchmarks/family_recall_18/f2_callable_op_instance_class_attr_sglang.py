"""sglang-style backends holding a callable read-op instance as a class attribute; the MUSA subclass widens."""
import torch


class KVReadOp:
    def __call__(self, pool, layer_id, dtype):
        return pool.get_key_buffer(layer_id)


class WidenKVReadOp(KVReadOp):
    def __call__(self, pool, layer_id, dtype):
        buf = super().__call__(pool, layer_id, dtype)
        return buf.to(dtype)  # positive: f2 CL001 op instance chosen by the subclass attribute; whole latent layer


class RowsKVReadOp(KVReadOp):
    def __init__(self, loc_attr="out_cache_loc"):
        self.loc_attr = loc_attr

    def rows(self, pool, layer_id, dtype, forward_batch):
        return pool.get_key_buffer(layer_id)[getattr(forward_batch, self.loc_attr)].to(dtype)  # negative: gathered rows


class FlashAttentionMLABackend:
    read_op = KVReadOp()

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.read_op(self.token_to_kv_pool, layer.layer_id, q.dtype)
        return self._mla(q, k_cache, layer, forward_batch)

    def _mla(self, q, k_cache, layer, forward_batch):
        return q


class MusaFlashAttentionMLABackend(FlashAttentionMLABackend):
    read_op = WidenKVReadOp()  # MUSA kernels take q and kv in one dtype
