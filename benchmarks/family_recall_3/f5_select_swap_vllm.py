import torch


class SelectSwapImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_sel = kv_cache.select(0, 0).to(query.dtype)  # positive: f5 CL001 select of the k plane keeps every block
        sw = kv_cache.swapaxes(1, 2)
        sw = sw.float()  # positive: f5 CL001 swapaxes of the whole cache
        fl = torch.flatten(kv_cache, 1, 2).to(torch.bfloat16)  # positive: f5 CL001 torch.flatten of the whole cache
        ex = kv_cache[1].unsqueeze(0).expand(2, -1, -1, -1, -1).half()  # positive: f5 CL001 expand of the whole value plane
        bt = attn_metadata.block_table
        g = kv_cache[1].index_select(0, bt.flatten()).half()  # negative: index_select of the used blocks first
        return k_sel, sw, fl, ex, g
