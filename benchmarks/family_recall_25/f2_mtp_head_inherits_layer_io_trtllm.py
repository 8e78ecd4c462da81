import torch


class DraftLayerIO:
    def dense_layer(self, manager, layer_idx):
        return manager.get_buffers(layer_idx).to(self.io_dtype)  # positive: f2 CL001 inherited helper converts the whole layer buffer, reached from MTP forward

    def dense_blocks(self, manager, layer_idx, block_ids):
        return manager.get_buffers(layer_idx)[block_ids].to(self.io_dtype)  # negative: blocks selected before the cast


class DeepseekV3MTPHead(DraftLayerIO, torch.nn.Module):
    def __init__(self, layer_idx, io_dtype=torch.bfloat16):
        super().__init__()
        self.layer_idx = layer_idx
        self.io_dtype = io_dtype

    def forward(self, input_ids, hidden_states, attn_metadata, spec_metadata):
        kv = self.dense_layer(attn_metadata.kv_cache_manager, self.layer_idx)
        embeds = hidden_states.to(self.io_dtype)  # negative: hidden states
        return kv, embeds
