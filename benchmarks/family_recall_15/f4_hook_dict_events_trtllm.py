import collections

import torch


class PyExecutorWithHooks:
    def __init__(self, model_engine, resource_manager):
        self.model_engine = model_engine
        self.resource_manager = resource_manager
        self._hooks = collections.defaultdict(list)
        self.register("pre_forward", self._snapshot_layer0)
        self.register("post_forward", self._count_blocks)

    def register(self, event, fn):
        self._hooks[event].append(fn)

    def _snapshot_layer0(self, manager, batch):
        return manager.get_buffers(0).to(torch.float32)  # positive: f4 CL001 hook run by _forward_step on the whole layer buffer

    def _count_blocks(self, manager, batch):
        return manager.get_buffers(0)[batch.block_ids].to(torch.float32)  # negative: block gather

    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        mgr = self.resource_manager.get_resource_manager("kv_cache_manager")
        for fn in self._hooks["pre_forward"]:
            fn(mgr, scheduled_requests)
        out = self.model_engine.forward(scheduled_requests, self.resource_manager)
        for fn in self._hooks["post_forward"]:
            fn(mgr, scheduled_requests)
        return out
