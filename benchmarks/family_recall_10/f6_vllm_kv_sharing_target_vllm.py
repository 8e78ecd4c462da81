"""vLLM KV sharing: a layer with kv_sharing_target_layer_name reads the target layer's bound cache."""
import torch


class SharedKVImpl:
    def __init__(self, kv_sharing_target_layer_name=None):
        self.kv_sharing_target_layer_name = kv_sharing_target_layer_name
        self.target = None

    def bind_target(self, static_forward_context):
        if self.kv_sharing_target_layer_name is not None:
            self.target = static_forward_context[self.kv_sharing_target_layer_name]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if self.target is not None:
            shared = self.target.kv_cache[0]
            dense = shared.to(query.dtype)  # positive: f6 CL001 the target layer's bound cache, shared
        else:
            dense = kv_cache[:, attn_metadata.block_table[0]].to(query.dtype)  # negative: gathered blocks
        lens = attn_metadata.seq_lens.to(torch.int64)  # negative: lengths
        return dense, lens
