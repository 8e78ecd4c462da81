"""An sglang trtllm-gen style MLA decode: the paged view of the whole latent pool is converted."""
import torch


class TRTLLMGenMLABackend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.kv_cache_dim = 576
        self.data_type = model_runner.kv_cache_dtype
        self.q_data_type = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kv_cache = k_cache.view(-1, self.page_size, self.kv_cache_dim).unsqueeze(1)
        if self.data_type != self.q_data_type:
            kv_cache = kv_cache.to(self.q_data_type)  # positive: f6 CL001 paged view of the whole pool upcast
        q_fp8 = q.to(torch.float8_e4m3fn)  # negative: the step's queries quantized
        block_tables = self.forward_metadata.block_kv_indices.to(torch.int32)  # negative: block table
        seq_lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        return kv_cache, q_fp8, block_tables, seq_lens
