"""sglang EAGLE tree verify: a scratch holder built in __init__ keeps the target pool."""
import torch


class _TreeScratch:
    def __init__(self, pool, model_dtype: torch.dtype):
        self.pool = pool
        self.model_dtype = model_dtype

    def target_k(self, layer_id: int) -> torch.Tensor:
        return self.pool.get_key_buffer(layer_id).to(self.model_dtype)  # positive: f1 CL001 whole target key buffer, called from forward_extend (target verify)

    def target_v(self, layer_id: int) -> torch.Tensor:
        return self.pool.get_value_buffer(layer_id).to(self.model_dtype)  # positive: f1 CL001 whole target value buffer

    def accepted(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.pool.get_key_buffer(layer_id)[loc].to(self.model_dtype)  # negative: accepted slots gathered first


class EagleTreeVerifyBackend:
    def __init__(self, model_runner):
        self.scratch = _TreeScratch(model_runner.token_to_kv_pool, model_runner.dtype)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        if forward_batch.forward_mode.is_target_verify():
            keys = self.scratch.target_k(layer.layer_id)
            values = self.scratch.target_v(layer.layer_id)
        else:
            keys = self.scratch.accepted(layer.layer_id, forward_batch.out_cache_loc)
            values = v.to(q.dtype)  # negative: new tokens
        return self._tree_attend(q, keys, values, forward_batch.spec_info)
