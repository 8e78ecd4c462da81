"""sglang pool getters beyond get_key_buffer: get_kv_buffer, get_raw_kv_buffer, get_mla_kv_buffer, dequant workspace."""
import torch


class TorchRefMHABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = self.token_to_kv_pool
        kp, vp = pool.get_kv_buffer(layer.layer_id)
        k_ref = kp.to(self.dtype)  # positive: f6 CL001 the key half of get_kv_buffer is the whole key plane
        v_ref = pool.get_kv_buffer(layer.layer_id)[1].to(self.dtype)  # positive: f6 CL001 the value half, whole
        k_raw, v_raw, k_sc, v_sc = pool.get_raw_kv_buffer(layer.layer_id)
        kr = k_raw.view(torch.uint8)  # negative: reinterpret of the packed buffer
        ks = k_sc.to(torch.float32)  # negative: block scales
        dk, dv = pool.get_dequant_workspace()
        wk = dk.to(self.dtype)  # negative: dequant workspace sized for referenced pages, not the pool
        return k_ref, v_ref, kr, ks, wk

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = self.token_to_kv_pool
        rows = pool.get_mla_kv_buffer(layer, forward_batch.out_cache_loc, q.dtype)  # negative: fused gather + cast
        both = torch.stack(pool.get_kv_buffer(layer.layer_id)).to(q.dtype)  # positive: f6 CL001 both whole planes of the layer, stacked
        return rows, both
