# TensorRT-LLM one-model EAGLE3 with a static draft tree: the tree manager keeps the target KV cache
# manager and serves the target layers the draft heads attend to during tree verification.
import torch


class SpecTreeManager:
    def __init__(self, max_draft_len, kv_cache_manager, eagle_layers):
        self.max_draft_len = max_draft_len
        self.target_kv = kv_cache_manager
        self.eagle_layers = eagle_layers

    def target_layer(self, idx: int, dtype: torch.dtype):
        buf = self.target_kv.get_buffers(idx)
        return buf[:, 0].to(dtype), buf[:, 1].to(dtype)  # positive: f1 CL001 both whole planes of the target layer (one line)

    def tree_rows(self, idx: int, block_ids, dtype: torch.dtype):
        return self.target_kv.get_buffers(idx)[block_ids].to(dtype)  # negative: blocks of the verified requests


class Eagle3TreeVerifier:
    def __init__(self, spec_config, kv_cache_manager):
        layers = spec_config.eagle3_layers_to_capture
        self.tree = SpecTreeManager(spec_config.max_draft_len, kv_cache_manager, layers)

    def forward(self, draft_tokens, attn_metadata, spec_metadata):
        dtype = spec_metadata.hidden_states.dtype
        tapped = [self.tree.target_layer(i, dtype) for i in self.tree.eagle_layers]
        mask = spec_metadata.spec_tree_mask.to(torch.bool)  # negative: the tree mask
        return self._verify(draft_tokens, tapped, mask, attn_metadata)
