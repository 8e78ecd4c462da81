# sglang FlashInfer MHA backend: a Turing (SM75) subclass without FP8 or bf16 kernels
# overrides the helper that hands the paged buffers to the prefill wrapper.
import torch


class FlashInferAttnBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v, layer.k_scale, layer.v_scale)
        paged = self._paged_kv(layer, forward_batch)
        wrapper = self.forward_metadata.prefill_wrappers[self._get_wrapper_idx(layer)]
        return wrapper.forward(q.view(-1, layer.tp_q_head_num, layer.head_dim), paged, causal=not layer.is_cross_attention)

    def _paged_kv(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)


class TuringFlashInferAttnBackend(FlashInferAttnBackend):
    def _paged_kv(self, layer, forward_batch):
        k_buf, v_buf = super()._paged_kv(layer, forward_batch)
        if k_buf.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            return k_buf.to(torch.float16), v_buf.to(torch.float16)  # positive: f2 CL001 both whole buffers in the override
        return k_buf, v_buf

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return super().forward_decode(q.to(torch.float16), k, v, layer, forward_batch, save_kv_cache)  # negative: query
