import torch


class MLACommonImplChunked:
    def __init__(self, kv_lora_rank, model_dtype, workspace):
        self.kv_lora_rank = kv_lora_rank
        self.model_dtype = model_dtype
        self.workspace = workspace

    def _compute_prefill_context(self, q, kv_c_and_k_pe_cache, attn_metadata):
        outs = []
        for chunk in attn_metadata.prefill.chunked_context.chunks:
            rows = kv_c_and_k_pe_cache.flatten(0, 1)[chunk.slot_ids]
            self.workspace[: rows.shape[0]].copy_(rows)  # negative: chunk rows into the workspace
            outs.append(q @ self.workspace[: rows.shape[0]].T)
        return outs

    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        if attn_metadata.prefill is not None and attn_metadata.prefill.chunked_context is not None:
            ctx = self._compute_prefill_context(q, kv_cache, attn_metadata)
        else:
            ctx = []
        if attn_metadata.decode is not None and not layer.fp8_mqa_supported:
            dense = kv_cache.to(self.model_dtype)  # positive: f6 CL001 decode without FP8 MQA widens the whole cache
            k_pe16 = kv_cache[..., self.kv_lora_rank:].to(self.model_dtype)  # positive: f6 CL001 rope part, every slot
            return ctx, q @ dense.flatten(0, 1).T
        return ctx, None
