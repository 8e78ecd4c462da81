"""TensorRT-LLM: a fallback backend swaps in its Metadata class; its prepare() widens every layer."""
import torch


class VanillaAttentionMetadata:
    def prepare(self):
        self.seq_lens_cuda = self.seq_lens.to("cuda", non_blocking=True)  # negative: lengths to the device


class VanillaAttention:
    Metadata = VanillaAttentionMetadata

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return self._sdpa(q, buf, metadata)


class _DenseMetadata(VanillaAttentionMetadata):
    def prepare(self):
        super().prepare()
        mgr = self.kv_cache_manager
        self.dense = [mgr.get_buffers(i).to(torch.float16) for i in range(mgr.num_local_layers)]  # positive: f2 CL001 every layer widened in the subclass prepare (per step)
        self.dense_scales = [s.to(torch.float16) for s in mgr.kv_scales]  # negative: scales


class TuringVanillaAttention(VanillaAttention):
    Metadata = _DenseMetadata

    def forward(self, q, k, v, metadata, **kwargs):
        ids = metadata.kv_cache_block_offsets[0]
        rows = metadata.kv_cache_manager.get_buffers(self.layer_idx)[ids].to(torch.float16)  # negative: blocks
        return self._sdpa_dense(q, metadata.dense[self.layer_idx], rows, metadata)
