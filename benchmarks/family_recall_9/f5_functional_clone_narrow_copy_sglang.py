"""Functional forms: torch.clone, torch.detach, torch.narrow_copy over the full extent, identity expand."""
import torch


class FunctionalCopyBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        a = torch.clone(kb).float()  # positive: f5 CL001 functional clone then convert
        b = torch.detach(vb).half()  # positive: f5 CL001 functional detach then convert
        c = torch.narrow_copy(kb, 0, 0, kb.size(0)).to(q.dtype)  # positive: f5 CL001 narrow_copy over the full token extent
        d = vb.expand(-1, -1, -1).to(q.dtype)  # positive: f5 CL001 identity expand
        n = forward_batch.batch_size
        e = torch.narrow_copy(kb, 0, 0, n).to(q.dtype)  # negative: bounded by the batch
        f = torch.clone(forward_batch.seq_lens).to(torch.int64)  # negative: lengths
        return a, b, c, d, e, f
