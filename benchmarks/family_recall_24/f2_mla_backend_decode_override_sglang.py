# sglang: a Triton MLA backend base and a debug subclass that checks the latent cache
# against the bf16 reference on every decode step.
import torch


class TritonMLABackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        latent = self._latent_for_kernel(layer, forward_batch)
        return self._decode(q, latent, layer, forward_batch)

    def _latent_for_kernel(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)


class CheckedTritonMLABackend(TritonMLABackend):
    def _latent_for_kernel(self, layer, forward_batch):
        latent = super()._latent_for_kernel(layer, forward_batch)
        ref = latent.to(torch.bfloat16)  # positive: f2 CL001 whole latent buffer in the override
        assert torch.isfinite(ref[forward_batch.out_cache_loc]).all()
        return latent

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.scale = forward_batch.token_to_kv_pool.k_scale.to(torch.float32)  # negative: a scale
