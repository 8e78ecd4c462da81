import torch

from .static_io import iter_block_caches, iter_dense_caches, seqlens_for_graph


class AscendGraphRunner:
    """Ascend aclgraph runner: static caches are refreshed before every replay."""

    def __init__(self, model, cache_engine, model_config, max_batch_size):
        self.model = model
        self.past_key_values = cache_engine.gpu_cache
        self.compute_dtype = model_config.dtype
        self.max_batch_size = max_batch_size
        self.static_caches = []

    def capture(self, attn_metadata):
        self.static_caches = [
            (torch.empty_like(k, dtype=self.compute_dtype), torch.empty_like(v, dtype=self.compute_dtype))  # negative: allocation at capture
            for k, v in self.past_key_values
        ]
        warm = list(iter_block_caches(self.past_key_values, attn_metadata.block_offsets, self.compute_dtype))
        self.graph = torch.npu.NPUGraph()
        return warm

    def __call__(self, input_ids, position_ids, attn_metadata):
        for (k_static, v_static), (k, v) in zip(self.static_caches, iter_dense_caches(self.past_key_values, self.compute_dtype)):
            k_static.copy_(k)
            v_static.copy_(v)
        self.input_buffers["kv_seqlens"].copy_(seqlens_for_graph(attn_metadata.kv_seqlens, self.max_batch_size))
        self.graph.replay()
        return self.output_buffers["hidden_states"]
