import torch


class Eagle3TargetVerifier:
    """Target-verify step of TRT-LLM's two-model EAGLE3 on a backend with no tree-mask FP8 kernel."""

    def __init__(self, kv_cache_manager, num_layers, compute_dtype=torch.bfloat16):
        self.mgr = kv_cache_manager
        self.num_layers = num_layers
        self.compute_dtype = compute_dtype

    def forward(self, draft_tokens, spec_metadata, attn_metadata):
        dense = []
        for i in range(self.num_layers):
            buf = self.mgr.get_buffers(i)
            if spec_metadata.use_tree_fallback:
                dense.append(buf.to(self.compute_dtype))  # positive: f6 CL001 whole layer widened for the tree-mask fallback, per verify step
            else:
                dense.append(buf)
        mask = spec_metadata.spec_decoding_packed_mask.to(torch.int32)  # negative: tree mask
        tokens = draft_tokens.to(torch.int64)  # negative: token ids
        return dense, mask, tokens

    def commit_accepted(self, layer_idx, block_ids):
        buf = self.mgr.get_buffers(layer_idx)
        return buf[block_ids].to(self.compute_dtype)  # negative: accepted blocks only
