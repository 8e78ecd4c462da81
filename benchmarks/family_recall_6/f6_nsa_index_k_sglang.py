"""NSA/DSA indexer: get_index_k_with_scale_buffer (a whole per-layer pool buffer) and its scale buffer."""
import torch


class IndexerTopkBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.index_head_dim = 128

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = self.token_to_kv_pool
        ik = pool.get_index_k_with_scale_buffer(layer.layer_id)
        ik_u8 = ik.view(torch.uint8)  # negative: reinterpret
        ik_dense = ik[..., : self.index_head_dim].view(torch.float8_e4m3fn).to(torch.bfloat16)  # positive: f6 CL001 every token's index key, reinterpreted then converted
        sc = pool.get_index_k_scale_buffer(layer.layer_id).to(torch.float32)  # negative: scales
        page_table = forward_batch.page_table.to(torch.int32)  # negative: page table
        return ik_u8, ik_dense, sc, page_table

    def forward_extend(self, q, k, v, layer, forward_batch):
        ik = self.token_to_kv_pool.get_index_k_with_scale_buffer(layer.layer_id)
        full = ik.float()  # positive: f6 CL001 the whole index-key buffer of the layer
        loc = forward_batch.out_cache_loc
        new = ik[loc].float()  # negative: gather-then-cast
        return full, new
