import torch


class AliasedAccessorBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._keys = pool.get_key_buffer
        self._vals = pool.get_value_buffer
        self._both = pool.get_kv_buffer
        self.fp8_dtype = torch.float8_e4m3fn

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        k_cache = self._keys(lid).to(q.dtype)  # positive: f1 CL001 bound get_key_buffer under another name
        v_cache = self._vals(lid).half()  # positive: f1 CL001 bound get_value_buffer under another name
        raw = self._keys(lid).view(self.fp8_dtype)  # negative: .view(dtype) reinterprets, zero copy
        return k_cache, v_cache, raw

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self._both(layer.layer_id)
        kb = kb.bfloat16()  # positive: f1 CL001 key half of bound get_kv_buffer
        idx = forward_batch.out_cache_loc
        vb_rows = vb[idx].bfloat16()  # negative: gathered rows only
        return kb, vb_rows
