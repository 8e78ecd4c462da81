"""Speculative decoding: target-verify and draft-extend branches of an MLA backend."""
import torch


class SpecAwareMLABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, q_rope=None, k_rope=None):
        mode = forward_batch.forward_mode
        if mode.is_target_verify():
            k_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole latent buffer on the target-verify path
            spec = forward_batch.spec_info
            mask = spec.custom_mask.to(torch.bool)  # negative: the verify tree mask
            pos = spec.positions.to(torch.int64)  # negative: draft positions
            return k_buf, mask, pos
        if mode.is_draft_extend():
            lat = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
            nope = lat[:, :, : self.kv_lora_rank].to(q.dtype)  # positive: f6 CL001 every token's latent part on the draft-extend path
            hidden = forward_batch.spec_info.hidden_states.to(q.dtype)  # negative: draft hidden states
            return nope, hidden
        lat = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return lat[forward_batch.extend_prefix_locs].to(q.dtype)  # negative: gather-then-cast of the prefix


class EagleDraftRunner:
    def __init__(self, target_model_runner):
        self.kv = target_model_runner.token_to_kv_pool

    def run(self, batch, layer_ids):
        drafts = [self.kv.get_value_buffer(i).to(torch.bfloat16) for i in layer_ids]  # positive: f6 CL001 whole target value buffers in the draft step
        accept = batch.accept_length.to(torch.int32)  # negative: accept lengths
        return drafts, accept
