# The backend lives in another module than the pool class and its view helpers.
import torch

from . import views
from .pool import LatentArenaPool
from f7_mla_pool_pkg import paged_latent as to_pages


class CrossModuleMLABackend:
    def __init__(self, pool: LatentArenaPool, page_size: int, kv_lora_rank: int):
        self.pool = pool
        self.page_size = page_size
        self.kv_lora_rank = kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        latent = self.pool.latent(layer.layer_id)
        latent_q = latent.to(q.dtype)  # positive: f7 CL001 accessor of a pool class defined in .pool
        pages = to_pages(latent, self.page_size).float()  # positive: f7 CL001 view helper re-exported by the package __init__
        nope = views.nope_of(latent, self.kv_lora_rank).bfloat16()  # positive: f7 CL001 from . import views; last-dim slice of the whole pool
        rows = views.head_rows(latent, forward_batch.out_cache_loc).to(q.dtype)  # negative: helper in views gathers rows
        own_rows = self.pool.latent_rows(layer.layer_id, forward_batch.out_cache_loc).half()  # negative: pool method gathers
        q_pages = views.nope_of(q, self.kv_lora_rank).to(torch.bfloat16)  # negative: same helper applied to q
        late = latent.to(q.dtype)[forward_batch.out_cache_loc]  # positive: f7 CL003 whole cast of the other module's pool, then a gather
        return latent_q, pages, nope, rows, own_rows, q_pages, late
