import torch


class StandaloneDraftVerifyBackend:
    """Standalone speculative decoding: a small bf16 draft model with its own pool beside the FP8 target pool."""

    def __init__(self, target_runner, draft_runner):
        self.target_pool = target_runner.token_to_kv_pool
        self.draft_pool = draft_runner.token_to_kv_pool
        self.dtype = target_runner.dtype

    def forward_target_verify(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_tgt = self.target_pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f6 CL001 whole FP8 target pool converted during verify
        k_drf = self.draft_pool.get_key_buffer(layer.layer_id).to(self.dtype)  # negative: the draft pool is already bf16 (same dtype)
        v_tgt = self.target_pool.get_value_buffer(layer.layer_id).to(dtype=self.dtype)  # positive: f6 CL001 whole FP8 target value pool converted
        v_acc = self.target_pool.get_value_buffer(layer.layer_id)[forward_batch.spec_info.accept_index].to(self.dtype)  # negative: accepted rows selected first
        return k_tgt, v_tgt, k_drf, v_acc
