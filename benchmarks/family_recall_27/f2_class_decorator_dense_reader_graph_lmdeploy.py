import torch


def with_dense_reader(cls):
    """Class decorator: gives a graph runner a per-layer reader in its compute dtype."""

    def dense_kv(self, layer_idx):
        k_cache, v_cache = self.past_key_values[layer_idx]
        k = k_cache.to(self.compute_dtype)  # positive: f2 CL001 whole key cache, method injected by the class decorator
        v = v_cache.to(self.compute_dtype)  # positive: f2 CL001 whole value cache
        return k, v

    cls.dense_kv = dense_kv
    return cls


class CUDAGraphRunnerBase:
    def __init__(self, model, cache_engine, model_config):
        self.model = model
        self.past_key_values = cache_engine.gpu_cache
        self.compute_dtype = model_config.dtype


@with_dense_reader
class NoFP8KernelGraphRunner(CUDAGraphRunnerBase):
    def __call__(self, **kwargs):
        attn_metadata = kwargs["attn_metadata"]
        offs = attn_metadata.block_offsets
        kv = [self.dense_kv(i) for i in range(len(self.past_key_values))]
        tail = self.past_key_values[0][0][offs[:, -1]].to(self.compute_dtype)  # negative: last block of each sequence
        self.input_buffers["kv_seqlens"].copy_(attn_metadata.kv_seqlens.to(torch.int32))  # negative: lengths
        self.graph.replay()
        return self.output_buffers["logits"], kv, tail
