"""An sglang cutlass-MLA style decode: the pool's paged view is upcast when dtypes differ."""
import torch

PAGE_SIZE = 128


class CutlassMLADecodeBackend:
    def __init__(self, model_runner):
        self.kv_cache_dim = 576
        self.workspace = torch.empty(1 << 20, dtype=torch.uint8)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        paged = k_cache.view(-1, PAGE_SIZE, self.kv_cache_dim)
        if paged.dtype != q.dtype:
            paged = paged.to(q.dtype)  # positive: f6 CL001 cutlass paged view of the whole layer
        q_nope_pe = torch.cat([q[..., :512], q[..., 512:]], -1).to(paged.dtype)  # negative: queries
        seq_lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        ws = self.workspace.view(torch.int8)  # negative: reinterpret of the workspace
        return paged, q_nope_pe, seq_lens, ws
