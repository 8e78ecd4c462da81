import torch


class CatBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        kv = torch.cat([kb, vb], dim=-1).to(q.dtype)  # positive: f5 CL001 cat of the two whole pools then cast
        loc = forward_batch.out_cache_loc
        rows = torch.cat([kb[loc], vb[loc]], dim=-1).to(q.dtype)  # negative: cat of gathered rows
        return kv, rows

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv_new = torch.cat([k, v], dim=-1).to(q.dtype)  # negative: batch tensors
        return kv_new
