import torch


class MultiStatementBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        x = pool.get_key_buffer(layer.layer_id)
        y = x.view(x.shape[0], layer.tp_k_head_num, -1)
        z = y.permute(1, 0, 2)
        w = z.contiguous()
        out = w.to(torch.bfloat16)  # positive: f5 CL001 chain of whole-keeping statements then cast
        a = pool.get_value_buffer(layer.layer_id)
        b = a.narrow(0, 0, a.shape[0])
        c = b.to(q.dtype)  # positive: f5 CL001 narrow over the full length keeps every slot
        d = a[forward_batch.out_cache_loc]
        e = d.view(-1, layer.tp_v_head_num, layer.v_head_dim).to(q.dtype)  # negative: gathered before view
        return out, c, e
