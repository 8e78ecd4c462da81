import torch

UPCAST = {torch.float8_e4m3fn: torch.bfloat16, torch.float8_e5m2: torch.float16}
STORAGE = {torch.float8_e4m3fn: torch.float8_e4m3fn, torch.bfloat16: torch.bfloat16}


class DtypeTableBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if kbuf.dtype in UPCAST:
            dense = kbuf.to(UPCAST[kbuf.dtype])  # positive: f5 CL001 whole buffer converted to a dtype looked up by its own dtype
        else:
            dense = kbuf
        same = kbuf.to(STORAGE.get(kbuf.dtype, kbuf.dtype))  # negative: every entry maps a dtype to itself
        return dense, same

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vbuf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        target = UPCAST.get(vbuf.dtype, q.dtype)
        v_dense = vbuf.to(target)  # positive: f5 CL001 whole value buffer to the table's compute dtype
        k_new = k.to(UPCAST.get(k.dtype, q.dtype))  # negative: the step's keys
        return v_dense, k_new
