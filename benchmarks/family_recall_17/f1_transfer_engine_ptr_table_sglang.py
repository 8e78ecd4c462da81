"""sglang PD prefill side: a mooncake-style transfer engine registers every pool layer
by data pointer; the per-layer send path looks a layer up by pointer and converts it to the
wire dtype of the decode instance."""
import torch


class LayerwiseTransferEngine:
    def __init__(self, kv_pool, wire_dtype):
        self.wire_dtype = wire_dtype
        self.k_ptrs = [buf.data_ptr() for buf in kv_pool.k_buffer]
        self.by_ptr = {buf.data_ptr(): buf for buf in kv_pool.k_buffer}
        self.by_ptr.update({buf.data_ptr(): buf for buf in kv_pool.v_buffer})
        self.start_layer = kv_pool.start_layer
        self.warm = [self.by_ptr[p].to(wire_dtype) for p in self.k_ptrs[:1]]  # negative: once at registration

    def send_layer(self, layer_id, page_rows):
        region = self.by_ptr[self.k_ptrs[layer_id - self.start_layer]]
        payload = region.to(self.wire_dtype)  # positive: f1 CL001 the registered pool layer, whole, every extend step
        rows = region[page_rows].to(self.wire_dtype)  # negative: only the request's pages
        return payload, rows


class PrefillFlashInferBackend:
    def __init__(self, model_runner, engine: LayerwiseTransferEngine):
        self.engine = engine

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        self.engine.send_layer(layer.layer_id, forward_batch.out_cache_loc)
        return q
