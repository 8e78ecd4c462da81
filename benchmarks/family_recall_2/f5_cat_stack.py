# torch.cat / torch.stack of whole pools, then a conversion.
import torch


class ConcatMLABackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_pool, v_pool = self.pool.get_kv_buffer(layer.layer_id)
        kv_joint = torch.cat([k_pool, v_pool], dim=-1).to(q.dtype)  # positive: f5 CL001 concatenation of the whole key and value pools
        stacked = torch.stack((k_pool, v_pool)).float()  # positive: f5 CL001 stack of both whole pools
        new_kv = torch.cat([k, v], dim=-1).to(q.dtype)  # negative: concatenation of the new tokens
        loc = forward_batch.out_cache_loc
        rows = torch.cat([k_pool[loc], v_pool[loc]], dim=-1).to(q.dtype)  # negative: concatenation of gathered rows
        return kv_joint, stacked, new_kv, rows

    def all_layers_fp32(self, layer_ids):
        per_layer = [self.pool.get_key_buffer(i) for i in layer_ids]
        return torch.stack(per_layer, dim=0).to(torch.float32)  # positive: f5 CL001 stack of every layer's whole key pool

    def rope_joint(self, layer, q_rope):
        latent = self.pool.get_key_buffer(layer.layer_id)
        return torch.concat((latent[..., : self.kv_lora_rank], latent[..., self.kv_lora_rank :]), dim=-1).half()  # positive: f5 CL001 torch.concat of two last-dim slices of the whole pool
