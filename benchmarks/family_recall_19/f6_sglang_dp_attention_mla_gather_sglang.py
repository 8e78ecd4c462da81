import torch


class DPAttentionMLABackend:
    """DP attention with EP MoE: each DP rank owns a full pool; decode runs the torch MLA path."""

    def __init__(self, model_runner, dp_rank):
        self.dp_rank = dp_rank
        self.dtype = model_runner.dtype
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        latent = pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f6 CL001 whole latent pool of this DP rank
        local = latent[forward_batch.dp_local_loc]
        gathered = pool.get_key_buffer(layer.layer_id)[forward_batch.dp_local_loc].to(self.dtype)  # negative: rows
        return local, gathered

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        self.warm = None
