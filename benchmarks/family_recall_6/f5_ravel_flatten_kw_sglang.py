"""Flattening spellings: ravel / torch.ravel / flatten(start_dim=) / view(torch.Size(...))."""
import torch


class RavelBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        vb = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        a = kb.ravel().to(q.dtype)  # positive: f5 CL001 ravel of the whole key buffer
        b = torch.ravel(vb).float()  # positive: f5 CL001 functional ravel of the whole value buffer
        c = kb.flatten(start_dim=-2).to(q.dtype)  # positive: f5 CL001 flatten with a keyword start_dim
        d = vb.view(torch.Size([vb.shape[0], -1])).half()  # positive: f5 CL001 view to a torch.Size of its own rows
        e = kb[: forward_batch.seq_lens_sum].ravel().to(q.dtype)  # negative: a token window
        f = q.ravel().float()  # negative: batch query
        g = kb.ravel().view(torch.uint8)  # negative: reinterpret
        return a, b, c, d, e, f
