"""A split or chunk into one piece is the whole buffer: chunk(1)[0], split(x, x.size(0))[0], vsplit(x, 1)[0]."""
import torch


class SinglePieceBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = buf.chunk(1)[0].to(self.dtype)  # positive: f5 CL001 one chunk is the whole buffer
        b = torch.split(buf, buf.size(0))[0].to(self.dtype)  # positive: f5 CL001 split size equals the length
        c = torch.vsplit(buf, 1)[0].half()  # positive: f5 CL001 one vertical section
        n_new = forward_batch.extend_num_tokens
        d = torch.split(buf, n_new)[0].to(self.dtype)  # negative: first piece of step-token size
        e = k.chunk(1)[0].to(buf.dtype)  # negative: this step's keys
        return a, b, c, d, e
