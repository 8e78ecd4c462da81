"""An in-tree MLA pool with unusual accessor names, one of which returns an int."""
import torch


class LatentTokenPool:
    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, dtype, layer_num, device, start_layer=0):
        self.dtype = dtype
        self.start_layer = start_layer
        self.kv_lora_rank = kv_lora_rank
        self.store_dtype = torch.uint8 if dtype == torch.float8_e4m3fn else dtype
        self.kv_buffer = [
            torch.zeros((size + 1, 1, kv_lora_rank + qk_rope_head_dim), dtype=self.store_dtype, device=device)
            for _ in range(layer_num)
        ]
        self.req_state = [torch.zeros((256, 4), dtype=torch.float32, device=device) for _ in range(layer_num)]

    def latent_of(self, layer_id: int):
        return self.kv_buffer[layer_id - self.start_layer].view(self.dtype)

    def rope_plane(self, layer_id: int):
        return self.kv_buffer[layer_id - self.start_layer][..., self.kv_lora_rank :].view(self.dtype)

    def nbytes_of(self, layer_id: int) -> int:
        return self.kv_buffer[layer_id - self.start_layer].numel()

    def state_of(self, layer_id: int):
        return self.req_state[layer_id - self.start_layer]


class OddNamesBackend:
    def __init__(self, model_runner):
        self.pool: LatentTokenPool = model_runner.token_to_kv_pool
        self.kernel = model_runner.attn_kernels.mla_decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        blob = self.pool.latent_of(layer.layer_id).to(q.dtype)  # positive: f6 CL001 latent_of returns kv_buffer[layer_id - start_layer]
        pe = self.pool.rope_plane(layer.layer_id)
        pe = pe.bfloat16()  # positive: f6 CL001 rope part of every slot
        st = self.pool.state_of(layer.layer_id).to(q.dtype)  # negative: small per-request state
        size = torch.tensor(self.pool.nbytes_of(layer.layer_id)).to(torch.int64)  # negative: a scalar
        return self.kernel(q, blob, pe, st, size)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = self.pool.latent_of(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        early = self.pool.latent_of(layer.layer_id).to(q.dtype)[forward_batch.out_cache_loc]  # positive: f6 CL003 latent_of cast then rows picked
        return rows, early
