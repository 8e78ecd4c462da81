import torch


class AscendMLAFallbackBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.graph_mode = False

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, q_rope=None, k_rope=None):
        pool = forward_batch.token_to_kv_pool
        k_nope = pool.get_key_buffer(layer.layer_id)
        k_pe = pool.get_value_buffer(layer.layer_id)
        if not self.graph_mode:
            k_nope = k_nope.to(q.dtype)  # positive: f6 CL001 npu torch fallback upcasts the latent buffer
            k_pe = k_pe.to(q.dtype)  # positive: f6 CL001 npu torch fallback upcasts the rope buffer
        bt = self.forward_metadata.block_tables.to(torch.int32)  # negative: block tables
        lens = self.forward_metadata.seq_lens_cpu_int.to(torch.int32)  # negative: lengths
        return self._torch_mla(q, q_rope, k_nope, k_pe, bt, lens)

    def _torch_mla(self, *a):
        return a[0]
