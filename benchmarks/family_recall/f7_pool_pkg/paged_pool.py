"""Pool module: a paged MHA pool whose accessors are named after pages, not keys."""
import torch


class PagedHeadPool:
    def __init__(self, num_pages, page_size, head_num, head_dim, layer_num, dtype=torch.float8_e4m3fn, start_layer=0):
        self.page_size = page_size
        self.dtype = dtype
        self.start_layer = start_layer
        shape = (num_pages, page_size, head_num, head_dim)
        self.k_pages = [torch.zeros(shape, dtype=dtype, device="cuda") for _ in range(layer_num)]
        self.v_pages = [torch.zeros(shape, dtype=dtype, device="cuda") for _ in range(layer_num)]

    def layer_k(self, layer_id):
        return self.k_pages[layer_id - self.start_layer]

    def layer_v(self, layer_id):
        return self.v_pages[layer_id - self.start_layer]

    def layer_kv(self, layer_id):
        return self.layer_k(layer_id), self.layer_v(layer_id)

    def bytes_per_layer(self):
        return self.k_pages[0].numel() * self.k_pages[0].element_size()  # negative: size only
