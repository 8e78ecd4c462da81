# TensorRT-LLM MLA generation on SM100 (trtllm-gen), inside the decode CUDA graph: the FP8-KV kernel needs
# an FP8 query; when the query stays bf16 (no MLA query quantization configured), the generation path
# widens the whole latent buffer so that both sides are bf16.
import torch


class TrtllmGenMLAGeneration:
    def __init__(self, layer_idx, kv_cache_manager, quant_config):
        self.layer_idx = layer_idx
        self.mgr = kv_cache_manager
        self.fp8_query = quant_config is not None and quant_config.quantize_mla_query

    def forward_generation(self, q, attn_metadata):
        latent = self.mgr.get_buffers(self.layer_idx)
        if latent.dtype == torch.float8_e4m3fn and not self.fp8_query:
            latent = latent.to(q.dtype)  # positive: f6 CL001 whole latent buffer of the layer, every decode step in the graph
            return self._trtllm_gen_mla(q, latent, attn_metadata)
        q_fp8 = q.to(torch.float8_e4m3fn)  # negative: the query
        return self._trtllm_gen_mla(q_fp8, latent, attn_metadata)

    def forward_context_chunk(self, q, attn_metadata):
        rows = self.mgr.get_buffers(self.layer_idx)[attn_metadata.chunk_block_ids]
        return self._context(q, rows.to(q.dtype))  # negative: blocks of the chunk
