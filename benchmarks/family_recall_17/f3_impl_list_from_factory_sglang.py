"""sglang: a per-layer list of attention impl objects, made by a factory function at init;
each impl keeps its own layer's buffer and widens it per decode step."""
import torch


class LayerImpl:
    def __init__(self, k_buf, v_buf, compute_dtype):
        self.k_buf, self.v_buf = k_buf, v_buf
        self.compute_dtype = compute_dtype

    def decode(self, q, loc):
        k = self.k_buf.to(self.compute_dtype)  # positive: f3 CL001 whole key layer kept by the impl
        v = self.v_buf.to(self.compute_dtype)  # positive: f3 CL001 whole value layer kept by the impl
        cur = self.k_buf[loc].to(self.compute_dtype)  # negative: this step's rows
        return q, k, v, cur


def make_impl(pool, layer_id, compute_dtype):
    return LayerImpl(pool.get_key_buffer(layer_id), pool.get_value_buffer(layer_id), compute_dtype)


class PerLayerImplBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.start = pool.start_layer
        self.impls = [make_impl(pool, i, model_runner.dtype) for i in range(pool.start_layer, pool.end_layer)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        impl = self.impls[layer.layer_id - self.start]
        return impl.decode(q, forward_batch.out_cache_loc)
