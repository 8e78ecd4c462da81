"""Pool-named objects that hold small per-request tensors, next to one real whole-pool read."""
import torch


class DraftKVState:
    """Per-request draft state; 'kv_buffer' here is (max_bs, hidden), not a token pool."""

    def __init__(self, max_bs, hidden, num_layers, device):
        self.kv_buffer = torch.zeros((max_bs, hidden), dtype=torch.float8_e4m3fn, device=device)
        self.k_buffer = [torch.zeros((max_bs, 4), dtype=torch.float16, device=device) for _ in range(num_layers)]
        self.start_layer = 0

    def get_key_buffer(self, layer_id: int):
        return self.k_buffer[layer_id - self.start_layer]


class SeqLenPool:
    def __init__(self, max_bs, device):
        self.pool = torch.zeros(max_bs, dtype=torch.int64, device=device)

    def get(self):
        return self.pool


class StateBackend:
    def __init__(self, model_runner):
        max_bs = model_runner.server_args.max_running_requests
        self.draft = DraftKVState(max_bs, model_runner.model_config.hidden_size, 4, model_runner.device)
        self.lens = SeqLenPool(max_bs, model_runner.device)
        self.token_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        d = self.draft.kv_buffer.to(q.dtype)  # negative: per-request draft state named kv_buffer
        dk = self.draft.get_key_buffer(0).float()  # negative: get_key_buffer of a per-request state class
        lens = self.lens.get().to(torch.int32)  # negative: sequence lengths named pool
        tk = self.token_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 the real token pool's whole key buffer
        return d, dk, lens, tk

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        bs = forward_batch.batch_size
        arena = self.draft.kv_buffer[:bs].bfloat16()  # negative: per-request state rows
        return arena
