import torch


class _VerifyIO:
    """Built once per target-verify step; the tree fallback reads the target KV through it."""

    def __init__(self, source, dtype, block_ids):
        self.source = source
        self.dtype = dtype
        self.block_ids = block_ids

    def dense(self, layer_idx):
        return self.source(layer_idx).to(self.dtype)  # positive: f1 CL001 every block of the layer (bound get_buffers held by the IO object)

    def used(self, layer_idx):
        return self.source(layer_idx)[self.block_ids].to(self.dtype)  # negative: the batch's blocks gathered first


class Eagle3TargetVerifyFallback:
    def __init__(self, model_config, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.compute_dtype = model_config.torch_dtype
        self.layer_idx = layer_idx

    def forward(self, q, attn_metadata, spec_metadata):
        block_ids = attn_metadata.kv_cache_params.block_ids_per_seq.flatten()
        io = _VerifyIO(self.mgr.get_buffers, self.compute_dtype, block_ids)
        if spec_metadata.is_spec_dec_tree and not spec_metadata.is_spec_dec_dynamic_tree:
            kv = io.dense(self.layer_idx)
        else:
            kv = io.used(self.layer_idx)
        mask = spec_metadata.spec_decoding_packed_mask.to(torch.int32)  # negative: the tree mask
        return self._reference_attention(q, kv, mask, spec_metadata.spec_decoding_position_offsets)
