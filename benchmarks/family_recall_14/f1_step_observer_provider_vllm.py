"""A per-step KV observer that reaches the runner's caches through a provider callable."""
from typing import Callable

import torch


class KVStepObserver:
    def __init__(self, caches_provider: Callable[[], list], every_n: int = 1):
        self.caches_provider = caches_provider
        self.every_n = every_n
        self.amax_history: list[float] = []

    def after_step(self, step: int, scheduler_output):
        if step % self.every_n:
            return
        for cache in self.caches_provider():
            wide = cache.to(torch.float32)  # positive: f1 CL001 every registered cache widened on each observed step
            self.amax_history.append(wide.abs().amax().item())


class GPUModelRunner:
    def __init__(self, vllm_config):
        self.kv_caches: list[torch.Tensor] = []
        self._step = 0
        self.observer = KVStepObserver(lambda: self.kv_caches, every_n=16)

    def initialize_kv_cache(self, kv_cache_config):
        self.kv_caches = self._allocate(kv_cache_config)
        self._probe = self.kv_caches[0].float().abs().amax()  # negative: one-time setup

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        hidden_states = self._model_forward(scheduler_output)
        self._step += 1
        self.observer.after_step(self._step, scheduler_output)
        return hidden_states.to(torch.float32)  # negative: hidden states, not a cache
