import torch


class HostTierConnectorWorker:
    """TRT-LLM connector worker: register_kv_caches hands [num_blocks, num_layers, kv_factor, ...]."""

    def __init__(self, llm_args, host_dtype=torch.bfloat16):
        self.host_dtype = host_dtype
        self.kv = None
        self.by_layer = None
        self.out = {}

    def register_kv_caches(self, kv_cache_tensor):
        self.kv = kv_cache_tensor
        self.by_layer = kv_cache_tensor.transpose(0, 1)  # layers first, still a view

    def save_kv_layer(self, layer_idx, stream):
        with torch.cuda.stream(stream):
            self.out[layer_idx] = self.by_layer[layer_idx].to(self.host_dtype)  # positive: f5 CL001 transpose(0, 1) then [i]: every block of layer i

    def save_block(self, block_id):
        return self.kv[block_id].to(self.host_dtype)  # negative: blocks first, kv[i] is one block of every layer

    def save_first_blocks(self, layer_idx, n):
        return self.by_layer[layer_idx, :n].to(self.host_dtype)  # negative: the first n blocks of one layer

    def wait_for_save(self, stream):
        stream.synchronize()
