import torch


class MLAShadowGraphBackend:
    """Replays a bf16 kernel over bf16 shadows of the fp8 MLA pool."""

    def __init__(self, model_runner, layer_ids):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.layer_ids = layer_ids
        self.static_kv = {i: torch.empty(self.pool.size + 1, 1, 576, dtype=self.dtype) for i in layer_ids}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, **kw):
        self._refresh_static(pool=self.pool, dtype=self.dtype, layer_ids=self.layer_ids[:1], rows=torch.arange(num_tokens), **kw)

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, **kw):
        self._refresh_static(pool=self.pool, dtype=self.dtype, layer_ids=self.layer_ids, **kw)
        self.cuda_graph_kv_lens[:bs].copy_(seq_lens.to(torch.int32))  # negative: lengths

    def _refresh_static(self, **kw):
        kw.pop("encoder_lens", None)
        self._copy_layers(**kw)

    def _copy_layers(self, *, pool, dtype, layer_ids, rows=None, **unused):
        for lid in layer_ids:
            src = pool.get_key_buffer(lid)
            if rows is None:
                self.static_kv[lid].copy_(src.to(dtype))  # positive: f4 CL001 whole layer, pool and dtype through two **kwargs hops from replay
            else:
                self.static_kv[lid][: rows.numel()].copy_(src[rows].to(dtype))  # negative: rows only
