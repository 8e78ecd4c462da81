import torch


class FlashInferMLABackendBase:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.q_dtype = model_runner.dtype

    def _kv_for_run(self, layer, q):
        return self.pool.get_key_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache and k is not None:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        kv = self._kv_for_run(layer, q)
        return self.decode_wrapper.run(q[..., :512], q[..., 512:], kv[..., :512], kv[..., 512:])


class FlashInferMLABackendSM80(FlashInferMLABackendBase):
    """Ampere: no FP8-KV MLA kernel in FlashInfer, so the latent cache is widened."""

    def _kv_for_run(self, layer, q):
        latent = super()._kv_for_run(layer, q)
        return latent.to(self.q_dtype)  # positive: f2 CL001 whole latent buffer in the overriding method


class FlashInferMLABackendSM90(FlashInferMLABackendBase):
    def _kv_for_run(self, layer, q):
        latent = super()._kv_for_run(layer, q)
        return latent.view(torch.float8_e4m3fn)  # negative: zero-copy reinterpret for the native FP8 read


def create_mla_backend(model_runner):
    major, _ = torch.cuda.get_device_capability()
    return (FlashInferMLABackendSM90 if major == 9 else FlashInferMLABackendSM80)(model_runner)
