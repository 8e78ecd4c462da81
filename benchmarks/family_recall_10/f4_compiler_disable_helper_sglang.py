"""A module helper under @torch.compiler.disable and @torch.no_grad(), called by decode and extend."""
import torch


@torch.compiler.disable
@torch.no_grad()
def _upcast_latent(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 decorated helper, every caller passes the pool layer


@torch.no_grad()
def _upcast_rows(rows, dtype):
    return rows.to(dtype)  # negative: only ever given gathered rows


class DisabledHelperBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        return _upcast_latent(pool.get_key_buffer(layer.layer_id), q.dtype)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        whole = _upcast_latent(pool.get_key_buffer(layer.layer_id), q.dtype)
        rows = _upcast_rows(pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc], q.dtype)
        return whole, rows
