"""sglang FlashInfer MLA: with decode-context parallelism the batch carries its own
gathered buffer; that one is per-batch, the pool is not."""
import torch


class FlashInferMLADCPBackend:
    def __init__(self, model_runner):
        self.q_data_type = model_runner.dtype
        self.decode_wrapper = None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        dcp = forward_batch.attn_dcp_metadata
        if dcp is not None:
            k_buf = dcp.dcp_kv_buffer.to(q.dtype)  # negative: per-batch DCP buffer, not the pool
        else:
            k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 whole MLA pool layer
        return self._run(q, k_buf, layer)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 whole MLA pool layer in decode
        return self._run(q, k_buf, layer)

    def _run(self, q, k_buf, layer):
        ckv = k_buf[:, :, : layer.v_head_dim]
        kpe = k_buf[:, :, layer.v_head_dim :]
        return self.decode_wrapper.run(q, ckv, kpe)
