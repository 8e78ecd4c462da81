import torch


class AttnBase:
    def __init__(self, model_runner):
        self.head_dim = model_runner.model_config.head_dim
        self.kernel = model_runner.attn_kernels.extend

    def _kv(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)

    def _rows(self, layer, forward_batch):
        k_buf, _ = self._kv(layer, forward_batch)
        return k_buf[forward_batch.out_cache_loc]
