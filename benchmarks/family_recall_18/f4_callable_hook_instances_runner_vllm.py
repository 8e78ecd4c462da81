"""vLLM-style runner with post-step hooks registered from outside; each hook is called with the caches."""
import torch


class KVCacheNormHook:
    def __init__(self, every=100):
        self.every = every
        self.norms = []

    def __call__(self, kv_caches, step, scheduled_blocks):
        if step % self.every == 0:
            self.norms = [cache.float().norm() for cache in kv_caches]  # positive: f4 CL001 hook instance called with the runner's whole caches


class ScheduledBlocksHook:
    def __call__(self, kv_caches, step, scheduled_blocks):
        return [cache[:, scheduled_blocks].float().amax() for cache in kv_caches]  # negative: scheduled blocks only


class GPUModelRunner:
    def __init__(self, model):
        self.model = model
        self.kv_caches = []
        self.step = 0
        self._post_step_hooks = []

    def initialize_kv_cache(self, kv_caches: dict):
        self.kv_caches = list(kv_caches.values())

    def register_post_step_hook(self, hook):
        self._post_step_hooks.append(hook)

    def execute_model(self, scheduler_output, scheduled_blocks):
        out = self.model(scheduler_output)
        self.step += 1
        for hook in self._post_step_hooks:
            hook(self.kv_caches, self.step, scheduled_blocks)
        return out


def enable_kv_debug(runner: GPUModelRunner):
    runner.register_post_step_hook(KVCacheNormHook(every=100))
    runner.register_post_step_hook(ScheduledBlocksHook())
