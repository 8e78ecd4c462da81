"""Backend module: imports the pool class from the sibling module."""
import torch

from .paged_pool import PagedHeadPool


class PagedHeadBackend:
    def __init__(self, pool: PagedHeadPool, compute_dtype=torch.bfloat16):
        self.pool = pool
        self.compute_dtype = compute_dtype

    def forward_decode(self, q, layer, page_table):
        k = self.pool.layer_k(layer.layer_id).to(self.compute_dtype)  # positive: f7 CL001 accessor of a pool class from another module
        kc, vc = self.pool.layer_kv(layer.layer_id)
        v = vc.to(self.compute_dtype)  # positive: f7 CL001 tuple accessor of a pool class from another module
        return k, v

    def forward_extend(self, q, layer, page_table):
        k_live = self.pool.layer_k(layer.layer_id)[page_table].to(self.compute_dtype)  # negative: page gather first
        return k_live


def build(num_pages, page_size, head_num, head_dim, layer_num):
    pool = PagedHeadPool(num_pages, page_size, head_num, head_dim, layer_num)
    backend = PagedHeadBackend(pool)
    warm = pool.layer_v(0).float()  # positive: f7 CL001 pool constructed from imported class
    return backend, warm
