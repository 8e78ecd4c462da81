"""Backend whose pool handles are attached after construction, by itself and by the runner."""
import torch


class LateBoundBackend:
    def __init__(self, model_runner):
        self.device = model_runner.device
        self.arena = None
        self.v_arena = None
        self.first = 0
        self.step_lens = torch.zeros(
            model_runner.server_args.max_running_requests, dtype=torch.int64, device=self.device
        )
        self.kernel = model_runner.attn_kernels.extend

    def attach(self, pool):
        self.arena = pool.k_buffer
        self.v_arena = pool.v_buffer
        self.first = pool.start_layer

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = self.arena[layer.layer_id - self.first]
        t = src.float()  # positive: f1 CL001 k_buffer list attached after construction
        lens = self.step_lens.to(torch.int32)  # negative: per-request lengths
        raw = self.v_arena[layer.layer_id - self.first].view(torch.uint8)  # negative: .view(dtype) reinterpret
        return self.kernel(q.float(), t, raw, lens)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        blob = self.source_pool.get_value_buffer(layer.layer_id)
        blob = blob.half()  # positive: f1 CL001 pool attribute set on the backend by the runner
        kk = self.source_pool.get_key_buffer(layer.layer_id).to(q.device)  # negative: device only
        sel = self.source_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].half()  # negative: gathered rows
        return blob, kk, sel


class RunnerWiring:
    def __init__(self, model_runner, backend: LateBoundBackend):
        backend.attach(model_runner.token_to_kv_pool)
        backend.source_pool = model_runner.token_to_kv_pool
        self.backend = backend

    def step(self, q, k, v, layer, forward_batch):
        if forward_batch.forward_mode.is_decode():
            return self.backend.forward_decode(q, k, v, layer, forward_batch)
        return self.backend.forward_extend(q, k, v, layer, forward_batch)
