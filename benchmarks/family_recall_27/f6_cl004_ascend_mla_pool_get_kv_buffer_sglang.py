import torch


class AscendMLAPagedTokenToKVPool:
    """Ascend MLA pool: k_buffer holds the latent part, v_buffer the rope part, both int8/fp8."""

    def __init__(self, size, page_size, kv_lora_rank, qk_rope_head_dim, store_dtype, dtype, layer_num, start_layer):
        n = size // page_size + 1
        self.k_buffer = [torch.zeros(n, page_size, 1, kv_lora_rank, dtype=store_dtype) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(n, page_size, 1, qk_rope_head_dim, dtype=store_dtype) for _ in range(layer_num)]
        self.store_dtype = store_dtype
        self.dtype = dtype
        self.start_layer = start_layer

    def get_kv_buffer(self, layer_id):
        i = layer_id - self.start_layer
        return self.k_buffer[i].to(self.dtype), self.v_buffer[i].to(self.dtype)  # positive: f6 CL004 accessor converts both whole per-layer buffers (one line)

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer]

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        i = layer.layer_id - self.start_layer
        page = self.k_buffer[i].view(-1, 1, self.k_buffer[i].shape[-1])
        page[loc] = cache_k.to(self.store_dtype)  # negative: writer of new tokens
        self.v_buffer[i].view(-1, 1, self.v_buffer[i].shape[-1])[loc] = cache_v.to(self.store_dtype)  # negative: writer

    def get_contiguous_buf_infos(self):
        return [b.data_ptr() for b in self.k_buffer + self.v_buffer], [b.nbytes for b in self.k_buffer]
