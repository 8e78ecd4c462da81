"""Long chains of whole-keeping statements, one with a gather in the middle."""
import torch


class ChainedViewAttention:
    def __init__(self, layer_idx, num_kv_heads, head_dim, tokens_per_block):
        self.layer_idx = layer_idx
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim
        self.tokens_per_block = tokens_per_block

    def forward(self, q, k, v, metadata, **kwargs):
        a = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        b = a.view(a.shape[0], 2, -1, self.head_dim)
        c = b.permute(1, 0, 2, 3)
        d = c.reshape(2, -1, self.head_dim)
        e = d.contiguous()
        f = e.to(q.dtype)  # positive: f5 CL001 view, permute, reshape, contiguous of the whole layer buffer then cast
        g = a.transpose(1, 2)
        h = g[metadata.block_ids]
        i = h.flatten(0, 1)
        j = i.to(q.dtype)  # negative: blocks gathered in the middle of the chain
        return self._attend(q, f, j)

    def __call__(self, q, k, v, metadata):
        a = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        m = a.select(1, 1).mT
        n = m.unsqueeze(0)
        o = n.type(torch.bfloat16)  # positive: f5 CL001 select, mT, unsqueeze of the whole value plane then .type
        p = a.view(torch.int8)
        r = p.view(a.shape)  # negative: view(dtype)/view(shape), no conversion
        qq = q.view(-1, self.num_kv_heads, self.head_dim).transpose(0, 1).float()  # negative: batch q
        return o, r, qq

    def _attend(self, q, kv, used):
        return torch.empty_like(q)


def block_ids_flat(metadata):
    ids = metadata.block_ids.view(-1)
    ids = ids.contiguous()
    return ids.to(torch.int64)  # negative: chain over the block ids
