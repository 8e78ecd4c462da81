"""getattr with constant names and defaults, for the layer cache and for the cast."""

import torch


class GetattrImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size
        self.out_dt = getattr(torch, "float16")

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        caches = getattr(layer, "kv_cache", None)
        if caches is None:
            return output
        mine = caches[attn_metadata.virtual_engine]
        up = getattr(mine, "to")(self.out_dt)  # positive: f4 CL001 layer.kv_cache[ve] cast through getattr(t, "to")
        kv_f = getattr(kv_cache, "float")()  # positive: f4 CL001 whole kv_cache argument cast through getattr(t, "float")
        q = getattr(query, "to")(self.out_dt)  # negative: batch query
        bt = getattr(attn_metadata, "block_table", None).to(torch.int64)  # negative: block table via getattr default
        sm = getattr(attn_metadata, "slot_mapping").to(torch.int64)  # negative: slot mapping
        torch.ops._C.ref_attention(output, q, up, kv_f, bt, sm)
        return output


class GetattrLookalikeImpl(GetattrImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        raw = getattr(kv_cache, "view")(torch.uint8)  # negative: view(dtype) reinterpret through getattr
        here = getattr(kv_cache, "to")(query.device)  # negative: device only
        same = getattr(kv_cache, "to")(getattr(kv_cache, "dtype"))  # negative: cast to its own dtype
        rows = getattr(kv_cache, "index_select")(1, attn_metadata.block_table.flatten()).to(self.out_dt)  # negative: gather-then-cast
        torch.ops._C.ref_attention(output, query, raw, here, same, rows)
        return output
