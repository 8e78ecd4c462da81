import torch


class EagleMLABackend:
    def __init__(self, model_runner, draft_pool):
        self.target_pool = model_runner.token_to_kv_pool
        self.draft_pool = draft_pool
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        spec = forward_batch.spec_info
        self.custom_mask = spec.custom_mask if spec is not None else None
        self.positions = forward_batch.positions.to(torch.int32)  # negative: positions

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        mode = forward_batch.forward_mode
        if mode.is_target_verify():
            kv = self.target_pool.get_key_buffer(layer.layer_id)
            mask = self.custom_mask.to(torch.bool)  # negative: tree mask
            return kv.to(self.dtype), mask  # positive: f6 CL001 whole target latent buffer in verify
        if mode.is_draft_extend():
            kv = self.draft_pool.get_key_buffer(layer.layer_id)
            accepted = forward_batch.spec_info.accept_length.to(torch.int32)  # negative: lengths
            return kv.to(self.dtype), accepted  # positive: f6 CL001 whole draft latent buffer in draft extend
        hidden = forward_batch.spec_info.hidden_states if forward_batch.spec_info else None
        return k.to(q.dtype), hidden  # negative: the step's keys

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.draft_pool if forward_batch.spec_info is not None else self.target_pool
        kv = pool.get_key_buffer(layer.layer_id)
        return kv[forward_batch.out_cache_loc].to(self.dtype)  # negative: gathered before the cast
