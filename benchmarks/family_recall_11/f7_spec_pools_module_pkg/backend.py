import torch

from .pools import pool_for


class SpecModuleBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = pool_for(forward_batch.forward_mode)
        kv = pool.get_key_buffer(layer.layer_id)
        if forward_batch.forward_mode.is_target_verify():
            return kv[forward_batch.spec_info.kv_indices].to(q.dtype)  # negative: verify slots gathered first
        return kv.to(q.dtype)  # positive: f7 CL001 whole latent buffer of the pool chosen in another module

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = pool_for(forward_batch.forward_mode)
        return pool.get_value_buffer(layer.layer_id).float(), forward_batch.seq_lens.to(torch.int32)  # positive: f7 CL001 whole value buffer of the module-chosen pool
