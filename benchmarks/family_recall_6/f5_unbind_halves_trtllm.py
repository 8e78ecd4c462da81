"""K and V halves of a TRT-LLM layer buffer taken with torch.unbind / unbind(dim=) / tuple unpacking."""
import torch


class UnbindAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        kh = torch.unbind(buf, 1)[0].to(q.dtype)  # positive: f5 CL001 every block's K half via torch.unbind
        k_half, v_half = buf.unbind(dim=1)
        vv = v_half.to(q.dtype)  # positive: f5 CL001 every block's V half, unpacked
        kk = k_half.flatten(0, 1).float()  # positive: f5 CL001 every block's K half, flattened
        ids = metadata.kv_block_ids
        kb, vb = buf[ids].unbind(1)
        kg = kb.to(q.dtype)  # negative: blocks gathered before unbind
        ids64 = ids.to(torch.int64)  # negative: block ids
        k_same = k_half.to(k_half.dtype)  # negative: own dtype
        return kh, vv, kk, kg, ids64
