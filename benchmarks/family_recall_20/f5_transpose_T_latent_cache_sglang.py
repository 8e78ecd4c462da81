import torch


class CutlassMLANoFp8Backend:
    """Column-major latent for a BF16-only CUTLASS MLA build (no FP8 KV support on this arch)."""

    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        latent = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        flat = latent.view(-1, layer.head_dim)
        kT = flat.T.contiguous().to(q.dtype)  # positive: f5 CL001 .T of the whole flattened latent pool, then converted
        rope_T = flat[:, layer.v_head_dim :].T.float()  # positive: f5 CL001 last-dim (rope) part keeps every slot, transposed and widened
        loc_T = flat[forward_batch.out_cache_loc].T.to(q.dtype)  # negative: rows selected before the transpose and cast
        w_T = layer.w_kc.T.to(q.dtype)  # negative: a weight, not the cache
        return kT, rope_T, loc_T, w_T
