"""copy_ of a whole pool into a fresh tensor of another dtype, and cat/stack before a gather."""
import torch


class CopyIntoBackend:
    def __init__(self, model_runner):
        self.kernel = model_runner.attn_kernels.decode
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        src = pool.get_key_buffer(layer.layer_id)
        dst = torch.empty(src.shape, dtype=torch.bfloat16, device=src.device)
        dst.copy_(src)  # positive: f5 CL001 copy_ of every slot into a fresh bf16 tensor of the pool's shape
        scratch = torch.empty_like(src, dtype=q.dtype)
        scratch.copy_(pool.get_value_buffer(layer.layer_id))  # positive: f5 CL001 copy_ of the whole value pool into an empty_like in q's dtype
        rows = torch.empty((loc.numel(), *src.shape[1:]), dtype=torch.bfloat16, device=src.device)
        rows.copy_(src[loc])  # negative: copy of gathered rows
        same = torch.empty_like(src)
        same.copy_(src)  # negative: same dtype copy, no conversion
        return self.kernel(q, dst, scratch, rows, same)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb, vb = pool.get_kv_buffer(layer.layer_id)
        loc = forward_batch.out_cache_loc
        r1 = torch.cat([kb, vb], dim=-1).to(q.dtype)[loc]  # positive: f5 CL003 cat of both whole pools cast, then rows picked
        r2 = torch.stack([kb, vb]).half().index_select(1, loc)  # positive: f5 CL003 stack of both whole pools cast, then index_select
        ok = torch.index_select(kb, 0, loc).to(q.dtype)  # negative: index_select then cast
        return r1, r2, ok


def copy_rows_out(pool, layer_id, loc, dtype):
    src = pool.get_key_buffer(layer_id)
    out = torch.empty((loc.numel(), *src.shape[1:]), dtype=dtype, device=src.device)
    out.copy_(src.index_select(0, loc))  # negative: gathered rows copied out
    return out


def host_mirror(pool, layer_id):
    src = pool.get_key_buffer(layer_id)
    host = torch.empty(src.shape, dtype=src.dtype, device="cpu", pin_memory=True)
    host.copy_(src, non_blocking=True)  # negative: same dtype, device copy
    return host
