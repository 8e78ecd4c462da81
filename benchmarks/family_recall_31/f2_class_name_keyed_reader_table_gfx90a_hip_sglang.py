# sglang ROCm: the HIP Triton backends share one base that picks the KV read by the concrete class's
# __name__; the gfx90a MLA subclass (no FP8 MFMA) is mapped to the dense read.
import torch


class HipTritonBackendBase:
    _READ_BY_CLASS = {
        "HipTritonAttnBackend": "_paged_read",
        "HipGfx90aMLABackend": "_dense_read",
    }

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype

    def _paged_read(self, layer, forward_batch):
        return self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(self.model_dtype)  # negative: rows of the batch

    def _dense_read(self, layer, forward_batch):
        return self.pool.get_key_buffer(layer.layer_id).to(self.model_dtype)  # positive: f2 CL001 whole per-layer latent buffer, chosen by the subclass's name

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        read = getattr(self, self._READ_BY_CLASS[type(self).__name__])
        kv = read(layer, forward_batch)
        return self._decode(q.view(-1, layer.tp_q_head_num, layer.head_dim), kv, forward_batch)


class HipTritonAttnBackend(HipTritonBackendBase):
    def _decode(self, q, kv, forward_batch):
        return self.decode_kernel(q, kv, forward_batch.req_to_token_pool.req_to_token)


class HipGfx90aMLABackend(HipTritonAttnBackend):
    pass
