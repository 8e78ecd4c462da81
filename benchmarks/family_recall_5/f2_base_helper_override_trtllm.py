"""A TRT-LLM-style attention base with a buffer helper; subclasses keep or gather."""

import torch


class AttentionBackendBase:
    def __init__(self, layer_idx, num_heads, head_dim, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.dtype = dtype

    def layer_buffer(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)

    def forward(self, q, k, v, metadata):
        raise NotImplementedError


class EagerBackend(AttentionBackendBase):
    def forward(self, q, k, v, metadata):
        buf = self.layer_buffer(metadata)
        bd = buf.to(self.dtype)  # positive: f2 CL001 inherited helper returns the manager's whole layer buffer
        return torch.ops.trtllm.eager_attn(q, bd, metadata.kv_cache_block_offsets)


class BlockGatherBackend(AttentionBackendBase):
    def layer_buffer(self, metadata):
        return super().layer_buffer(metadata)[metadata.block_ids_flat]


class BlockGatherFp32Backend(BlockGatherBackend):
    def forward(self, q, k, v, metadata):
        blocks = self.layer_buffer(metadata).float()  # negative: overridden helper gathers the batch's blocks
        return torch.ops.trtllm.eager_attn(q.float(), blocks, None)  # negative: batch query


class TransposedBackend(EagerBackend):
    def layer_buffer(self, metadata):
        return super().layer_buffer(metadata).transpose(0, 1)

    def forward(self, q, k, v, metadata):
        kv = self.layer_buffer(metadata)
        kv32 = kv.to(torch.float32)  # positive: f2 CL001 override transposes super()'s whole buffer
        return torch.ops.trtllm.eager_attn(q, kv32, metadata.kv_cache_block_offsets)
