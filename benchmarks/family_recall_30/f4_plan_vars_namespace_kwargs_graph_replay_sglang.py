"""sglang FlashInfer MLA (FP8 pool): plan dtypes kept on SimpleNamespace objects and splatted with **vars(...); replay plans bf16/bf16."""
from types import SimpleNamespace

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class FlashInferMLAGraphBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.data_type = model_runner.kv_cache_dtype  # torch.float8_e4m3fn for this deployment
        self._bf16_plan = SimpleNamespace(q_data_type=model_runner.dtype, kv_data_type=model_runner.dtype)
        self._native_plan = SimpleNamespace(q_data_type=model_runner.dtype, kv_data_type=self.data_type)

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        w = self.decode_cuda_graph_wrappers[bs]
        m = self.graph_meta[bs]
        w.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.sm_scale, **vars(self._native_plan))  # negative: declares the pool's own kv dtype (and is capture)

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        w = self.decode_cuda_graph_wrappers[bs]
        m = self.graph_meta[bs]
        w.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.sm_scale, **vars(self._bf16_plan))  # positive: f4 CL002 q and kv declared as the model dtype through **vars() while the pool is FP8

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole latent layer for the bf16 plan
        q_nope = q.view(-1, layer.tp_q_head_num, layer.head_dim)[..., : self.kv_lora_rank]
        q_rope = q.view(-1, layer.tp_q_head_num, layer.head_dim)[..., self.kv_lora_rank :].to(k_buf.dtype)  # negative: the query
        w = self.forward_metadata.decode_wrapper
        return w.run(q_nope, q_rope, k_buf[:, :, : self.kv_lora_rank], k_buf[:, :, self.kv_lora_rank :])
