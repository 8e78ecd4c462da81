import torch


class SwapRoleBackend:
    def __init__(self, target_pool, draft_pool, dtype):
        self.roles = (target_pool, draft_pool)
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        active, idle = self.roles
        if forward_batch.forward_mode.is_draft_extend():
            active, idle = idle, active
        cur = active.get_key_buffer(layer.layer_id)
        c16 = cur.to(self.dtype)  # positive: f3 CL001 pool picked from a role tuple and swapped for draft extend
        prefix = forward_batch.extend_prefix_lens
        p = prefix.to(torch.int32)  # negative: prefix lengths
        tail = cur[forward_batch.out_cache_loc].to(self.dtype)  # negative: gather-then-cast
        return c16, p, tail
