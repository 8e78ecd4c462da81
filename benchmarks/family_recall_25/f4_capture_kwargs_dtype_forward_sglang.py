import torch


def _prepare_kv(pool, layer_id, **opts):
    buf = pool.get_key_buffer(layer_id)
    if opts.get("dtype") is not None:
        buf = buf.to(opts["dtype"])  # positive: f4 CL001 dtype carried in **opts from the per-replay caller
    return buf


class TorchNativeGraphBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, **kw):
        self.captured = self.pool.get_key_buffer(0).to(self.dtype)  # negative: capture-time cast, setup

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        opts = {"dtype": self.dtype} if self.pool.dtype != self.dtype else {}
        kv = _prepare_kv(self.pool, layer.layer_id, **opts)
        q = q.to(self.dtype, copy=False)  # negative: query
        return kv, q
