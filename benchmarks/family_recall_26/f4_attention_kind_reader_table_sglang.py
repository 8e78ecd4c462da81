import torch


class HybridSWAReadPolicy:
    """Reads full-attention layers whole and sliding-window layers as the last window."""

    def __init__(self, pool, window, compute_dtype=torch.bfloat16):
        self.pool = pool
        self.window = window
        self.compute_dtype = compute_dtype
        self.readers = {
            "full": lambda buf, _lens: buf.to(self.compute_dtype),  # positive: f4 CL001 whole full-attention layer, via a reader table keyed by attention kind
            "swa": lambda buf, lens: buf[lens - self.window:lens].to(self.compute_dtype),  # negative: the window rows only
        }

    def read(self, layer, seq_len):
        kind = "swa" if layer.sliding_window_size > 0 else "full"
        return self.readers[kind](self.pool.get_key_buffer(layer.layer_id), seq_len)


class TorchSDPAHybridBackend:
    def __init__(self, model_runner):
        self.policy = HybridSWAReadPolicy(model_runner.token_to_kv_pool, model_runner.sliding_window_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = self.policy.read(layer, int(forward_batch.seq_lens_cpu.max()))
        return torch.nn.functional.scaled_dot_product_attention(q, keys, keys)
