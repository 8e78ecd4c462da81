"""sglang FlashInfer MLA target verify replayed in a CUDA graph: the pool cast vs the per-batch DCP buffer cast."""
import torch


class FlashInferMLAVerifyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.prefill_wrapper_verify = None
        self.graph_wrappers = {}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        self.graph_wrappers[bs] = self.prefill_wrapper_verify  # setup: use_cuda_graph=True wrapper

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole per-layer buffer in the (replayed) decode
        return self.graph_wrappers[forward_batch.batch_size].run(q[..., : self.kv_lora_rank], q[..., self.kv_lora_rank :], kv[..., : self.kv_lora_rank], kv[..., self.kv_lora_rank :])

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        if forward_batch.attn_dcp_metadata is not None:
            kv = forward_batch.attn_dcp_metadata.dcp_kv_buffer.to(q.dtype)  # negative: per-batch DCP buffer, not the pool
        elif forward_batch.forward_mode.is_target_verify():
            kv = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole per-layer pool buffer in the replayed verify step
        else:
            kv = self.pool.get_key_buffer(layer.layer_id)
            q = q.to(kv.dtype)  # negative: the query
        w = self.graph_wrappers.get(forward_batch.batch_size, self.prefill_wrapper_verify)
        return w.run(q[..., : self.kv_lora_rank], q[..., self.kv_lora_rank :], kv[..., : self.kv_lora_rank], kv[..., self.kv_lora_rank :])
