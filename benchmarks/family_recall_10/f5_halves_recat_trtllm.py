"""Split halves concatenated back together keep every element of the manager buffer."""
import torch


class RecatAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        kv = torch.cat([buf[:, :1], buf[:, 1:]], 1).to(q.dtype)  # positive: f5 CL001 K and V halves re-joined
        h = buf.shape[0] // 2
        blocks = torch.cat((buf[:h], buf[h:])).half()  # positive: f5 CL001 both block halves re-joined
        new = torch.cat([k.unsqueeze(1), v.unsqueeze(1)], 1).to(buf.dtype)  # negative: this step's k and v
        lens = torch.cat([attn_metadata.seq_lens, attn_metadata.seq_lens[:1]]).to(torch.int64)  # negative: lengths
        return kv, blocks, new, lens
