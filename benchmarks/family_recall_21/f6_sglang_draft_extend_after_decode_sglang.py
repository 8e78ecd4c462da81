import torch


class EAGLEDraftExtendTritonBackend:
    """Draft model (bf16 attention) shares the target's FP8 pool in draft-extend-after-decode."""

    def __init__(self, model_runner, draft_dtype=torch.bfloat16):
        self.draft_dtype = draft_dtype
        self.target_pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.forward_mode.is_draft_extend():
            k_buf = self.target_pool.get_key_buffer(layer.layer_id).to(self.draft_dtype)  # positive: f6 CL001 whole target key buffer per draft step
            v_buf = self.target_pool.get_value_buffer(layer.layer_id).to(self.draft_dtype)  # positive: f6 CL001 whole target value buffer
            return self._extend(q, k_buf, v_buf, forward_batch)
        k_buf = self.target_pool.get_key_buffer(layer.layer_id)
        v_new = v.to(self.draft_dtype)  # negative: new tokens
        accepted = k_buf[forward_batch.spec_info.accept_index].to(self.draft_dtype)  # negative: accepted rows first
        return self._extend(q, k_buf, v_new, forward_batch), accepted

    def _extend(self, q, k_buf, v_buf, forward_batch):
        return q, k_buf, v_buf
