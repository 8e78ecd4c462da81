"""Layout changes spelled as einsum, `permute(*reversed(range(x.dim())))` and `.T`."""
import torch


class EinsumLayoutBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        a = torch.einsum("thd->htd", kb).to(q.dtype)  # positive: f5 CL001 einsum used as a transpose of the whole buffer
        b = vb.permute(*reversed(range(vb.dim()))).float()  # positive: f5 CL001 computed reverse permutation
        c = vb.flatten(1).T.half()  # positive: f5 CL001 flattened whole buffer transposed with .T
        loc = forward_batch.out_cache_loc
        d = torch.einsum("thd->htd", kb[loc]).to(q.dtype)  # negative: gathered rows
        e = torch.einsum("thd->htd", k).to(q.dtype)  # negative: the step's keys
        return a, b, c, d, e
