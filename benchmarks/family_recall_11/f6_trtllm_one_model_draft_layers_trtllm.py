import torch


class OneModelSpecAttention:
    """MTP / one-model EAGLE: draft layers live in the same manager after the target layers."""

    def __init__(self, layer_idx, num_target_layers, is_draft):
        self.layer_idx = layer_idx
        self.offset = num_target_layers if is_draft else 0
        self.is_draft = is_draft

    def forward(self, q, k, v, metadata, spec_metadata=None, **kwargs):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx + self.offset)
        if self.is_draft and spec_metadata is not None and spec_metadata.upcast_draft_kv:
            buf = buf.to(q.dtype)  # positive: f6 CL001 whole buffer of the draft layer in the shared manager
        if spec_metadata is not None:
            draft_lens = spec_metadata.draft_lens.to(torch.int32)  # negative: lengths
            hidden = spec_metadata.hidden_states[: q.shape[0]].to(q.dtype)  # negative: draft hidden states of the step
            return buf, draft_lens, hidden
        return buf
