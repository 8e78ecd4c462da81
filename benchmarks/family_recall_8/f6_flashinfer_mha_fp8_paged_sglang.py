import torch


class FlashInferMHALite:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        if layer.k_scale is None:
            k_buf = k_buf.to(q.dtype)  # positive: f6 CL001 whole K buffer when no scale is set
            v_buf = v_buf.to(q.dtype)  # positive: f6 CL001 whole V buffer when no scale is set
        return k_buf, v_buf

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ws_k, ws_v = self.token_to_kv_pool.get_flashinfer_dequant_workspace_kv_buffer(layer.layer_id, forward_batch.kv_indices)
        a = ws_k.to(q.dtype)  # negative: workspace sized for the referenced pages
        b = self.token_to_kv_pool.get_key_buffer(layer.layer_id).view(torch.uint8)  # negative: reinterpret
        return a, b, ws_v
