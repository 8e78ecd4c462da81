"""TensorRT-LLM: a debug KV dumper finds the manager with operator.attrgetter on a dotted
path, on every executor step."""
import operator

import torch


class KVStepDumper:
    manager_of = operator.attrgetter("model_engine.kv_cache_manager")

    def __init__(self, executor, layers=(0,)):
        self.executor = executor
        self.layers = layers

    def on_step(self, scheduled_requests):
        mgr = self.manager_of(self.executor)
        for idx in self.layers:
            buf = mgr.get_buffers(idx)
            full = buf.float()  # positive: f1 CL001 whole layer buffer, widened every step
            head = buf[:4].float()  # negative: four blocks only
            self._emit(idx, full.abs().amax(), head)

    def _emit(self, idx, amax, head):
        return None


class PyExecutor:
    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        outputs = self.model_engine.forward(scheduled_requests, self.resource_manager)
        self.dumper.on_step(scheduled_requests)
        return outputs
