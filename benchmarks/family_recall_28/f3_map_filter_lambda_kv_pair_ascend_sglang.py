"""sglang Ascend NPU torch fallback: the layer's (k, v) pair widened with map(lambda); scales through filter(lambda)."""
import torch


class AscendTorchFallbackBackend:
    def __init__(self, model_runner, native_layer_ids):
        self.pool = model_runner.token_to_kv_pool
        self.native_layer_ids = frozenset(native_layer_ids)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.layer_id in self.native_layer_ids:
            return torch.ops.npu.npu_fused_infer_attention_score(q, *self.pool.get_kv_buffer(layer.layer_id), forward_batch.seq_lens)
        k_dense, v_dense = map(lambda t: t.to(q.dtype), self.pool.get_kv_buffer(layer.layer_id))  # positive: f3 CL001 both whole per-layer buffers of the pair (one finding)
        scales = list(map(lambda s: s.float(), filter(lambda s: s is not None, (layer.k_scale, layer.v_scale))))  # negative: scales
        return self._torch_decode(q, k_dense, v_dense, scales, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        k_rows, v_rows = map(lambda t: t[loc].to(q.dtype), self.pool.get_kv_buffer(layer.layer_id))  # negative: rows gathered first
        return self._torch_extend(q, k_rows, v_rows, forward_batch)

    def _torch_decode(self, q, k, v, scales, forward_batch):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)

    def _torch_extend(self, q, k, v, forward_batch):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
