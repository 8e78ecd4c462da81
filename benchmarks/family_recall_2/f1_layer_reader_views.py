# Reader / view objects built around a layer buffer (sglang triton + flashinfer flavour).
import torch


class PagedReader:
    """Wraps one layer's buffer with a page size for the kernels."""

    def __init__(self, cache: torch.Tensor, page_size: int):
        self.cache = cache
        self.page_size = page_size

    def all_pages(self) -> torch.Tensor:
        return self.cache.view(-1, self.page_size, *self.cache.shape[1:])

    def flat(self) -> torch.Tensor:
        return self.cache.view(-1, self.cache.shape[-1])

    def rows(self, slot_mapping: torch.Tensor) -> torch.Tensor:
        return self.flat()[slot_mapping]

    def prefix(self, n: int) -> torch.Tensor:
        return self.cache[:n]

    @property
    def raw(self) -> torch.Tensor:
        return self.cache


class SplitLatentView:
    def __init__(self, kv_buffer: torch.Tensor, kv_lora_rank: int):
        self.kv_buffer = kv_buffer
        self.rank = kv_lora_rank

    def nope(self) -> torch.Tensor:
        return self.kv_buffer[..., : self.rank]

    def rope(self) -> torch.Tensor:
        return self.kv_buffer[..., self.rank :]


class ReaderTritonBackend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.compute_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        reader = PagedReader(pool.get_key_buffer(layer.layer_id), self.page_size)
        pages = reader.all_pages().float()  # positive: f1 CL001 reader over the whole key pool, every page
        flat = reader.flat().to(q.dtype)  # positive: f1 CL001 flat() is a view of the whole pool
        picked = reader.rows(forward_batch.out_cache_loc).to(q.dtype)  # negative: rows() gathers slots first
        active = reader.prefix(forward_batch.seq_lens_sum).to(q.dtype)  # negative: active prefix only
        raw16 = reader.raw.half()  # positive: f1 CL001 property raw hands back the wrapped pool
        qreader = PagedReader(q, 1)
        q32 = qreader.raw.float()  # negative: reader built over q, a batch tensor
        return pages, flat, picked, active, raw16, q32

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = SplitLatentView(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id), self.kv_lora_rank)
        nope_bf16 = view.nope().to(self.compute_dtype)  # positive: f1 CL001 last-dim slice keeps every token of the pool
        rope_bf16 = view.rope().bfloat16()  # positive: f1 CL001 rope part of the whole latent pool
        kv_new = SplitLatentView(k, self.kv_lora_rank)
        k_nope = kv_new.nope().to(self.compute_dtype)  # negative: view built over the new k
        return nope_bf16, rope_bf16, k_nope
