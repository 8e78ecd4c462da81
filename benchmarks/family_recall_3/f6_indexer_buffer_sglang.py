import torch


class IndexerKPool:
    def __init__(self, size, page_size, index_head_dim, layer_num, device, start_layer=0):
        self.start_layer = start_layer
        self.page_size = page_size
        self.index_k_with_scale_buffer = [
            torch.zeros((size // page_size + 1, page_size * (index_head_dim + 4)), dtype=torch.uint8, device=device)
            for _ in range(layer_num)
        ]

    def get_index_k_with_scale_buffer(self, layer_id: int) -> torch.Tensor:
        return self.index_k_with_scale_buffer[layer_id - self.start_layer]


class IndexerBackend:
    def __init__(self, model_runner):
        self.pool: IndexerKPool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_index_k_with_scale_buffer(layer.layer_id)
        as_f = buf.to(torch.float32)  # positive: f6 CL001 indexer k buffer accessor of an in-tree pool
        pages = forward_batch.page_table
        sel = buf[pages].to(torch.float32)  # negative: pages gathered first
        return as_f, sel
