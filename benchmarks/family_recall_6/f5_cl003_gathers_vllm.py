"""CL003: the whole cache is converted and then gathered on the same line (masks, take, embedding, take_along_dim)."""
import torch
import torch.nn.functional as F


class GatherAfterCastImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        bt = attn_metadata.block_table[0]
        mask = attn_metadata.block_mask
        a = key_cache.to(query.dtype)[mask]  # positive: f5 CL003 cast, then a boolean-mask gather
        b = torch.take(value_cache.float(), attn_metadata.flat_index)  # positive: f5 CL003 cast, then torch.take
        c = F.embedding(bt, key_cache.flatten(1).to(query.dtype))  # positive: f5 CL003 cast, then an embedding lookup of the blocks
        idx = bt.view(-1, 1, 1, 1).expand(-1, *value_cache.shape[1:])
        d = value_cache.to(query.dtype).take_along_dim(idx, 0)  # positive: f5 CL003 cast, then take_along_dim
        e = key_cache.half().unflatten(0, (-1, 2))[bt // 2]  # positive: f5 CL003 cast, regroup, gather pages
        f = key_cache[mask].to(query.dtype)  # negative: gather-then-cast
        g = torch.take(value_cache, attn_metadata.flat_index).float()  # negative: gather-then-cast
        h = F.embedding(bt, key_cache.flatten(1)).to(query.dtype)  # negative: gather-then-cast
        return a, b, c, d, e, f, g, h
