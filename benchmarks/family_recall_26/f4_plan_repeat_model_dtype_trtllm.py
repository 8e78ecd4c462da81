import itertools

import torch


class FlashInferBackendMetadata:
    def __init__(self, kv_cache_manager, num_heads, num_kv_heads, head_dim, model_dtype):
        self.kv_cache_manager = kv_cache_manager
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.model_dtype = model_dtype
        self.decode_wrapper = None

    def prepare(self):
        idx_args = (self.paged_kv_indptr, self.paged_kv_indices, self.paged_kv_last_page_len)
        self.decode_wrapper.plan(  # positive: f4 CL002 both dtypes star-unpacked from itertools.repeat(model dtype, 2)
            *idx_args, self.num_heads, self.num_kv_heads, self.head_dim, self.tokens_per_block,
            "NONE", *itertools.repeat(self.model_dtype, 2),
        )
        self.window = torch.tensor(self.window_sizes, dtype=torch.int32)  # negative: metadata tensor


class FlashInferAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        buf = buf.to(metadata.model_dtype)  # positive: f4 CL001 whole layer cast to match the model-dtype plan
        kv_new = torch.stack((k, v), 1).to(buf.dtype)  # negative: new tokens
        return metadata.decode_wrapper.run(q, buf), kv_new
