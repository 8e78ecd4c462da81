"""Cast before gather: every slot converted, a few rows kept (CL003)."""
import torch


class CastThenGatherBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = 512

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        k_rows = pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]  # positive: f5 CL003 whole key pool cast then indexed
        v_rows = pool.get_value_buffer(layer.layer_id).float().index_select(0, loc)  # positive: f5 CL003 whole value pool cast then index_select
        kv = pool.get_key_buffer(layer.layer_id).view(-1, 576)
        lat = kv.to(q.dtype)[forward_batch.prefix_loc]  # positive: f5 CL003 viewed whole pool cast then gathered
        ok = kv[forward_batch.prefix_loc].to(q.dtype)  # negative: gather then cast
        return k_rows, v_rows, lat, ok

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        idx = forward_batch.decode_kv_indices
        picked = torch.index_select(pool.get_key_buffer(layer.layer_id).half(), 0, idx)  # positive: f5 CL003 torch.index_select of a cast whole pool
        gathered = torch.gather(pool.get_key_buffer(layer.layer_id).to(q.dtype), 0, idx.view(-1, 1, 1).expand(-1, 1, 576))  # positive: f5 CL003 torch.gather of a cast whole pool
        return picked, gathered
