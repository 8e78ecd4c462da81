from flashinfer.mla import BatchMLAPagedAttentionWrapper

from .base import MLAPlannerBase


class SpecMLABackend(MLAPlannerBase):
    def __init__(self, model_runner, workspace):
        super().__init__(model_runner)
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_meta
        if forward_batch.forward_mode.is_target_verify():
            self._plan_verify(self.wrapper, m, 16, 0.1)
        else:
            self._plan_decode(self.wrapper, m, 16, 0.1)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f7 CL001 whole latent layer
        return lat
