"""vLLM Turing model runner: a flat [k0, v0, k1, v1, ...] plane list paired back with itertools.batched (Python 3.12) each step."""
import itertools

import torch

from vllm.v1.worker.gpu_model_runner import GPUModelRunner


class TuringKVTable:
    def __init__(self, runner):
        self.runner = runner

    def _flat(self):
        return [t for kv in self.runner.kv_caches for t in kv.unbind(0)]

    def dense_layers(self, dtype):
        return [(k.to(dtype), v.to(dtype)) for k, v in itertools.batched(self._flat(), 2)]  # positive: f3 CL001 every layer's key and value planes (one line)

    def recent(self, block_ids, dtype):
        return [(k[block_ids].to(dtype), v[block_ids].to(dtype)) for k, v in itertools.batched(self._flat(), 2)]  # negative: blocks selected first


class TuringModelRunner(GPUModelRunner):
    def execute_model(self, scheduler_output, intermediate_tensors=None):
        self.dense_kv = self.kv_table.dense_layers(self.dtype)
        self.block_ids_gpu = self.input_batch.block_table[0].get_device_tensor().to(self.device)  # negative: block table moved to the device
        return super().execute_model(scheduler_output, intermediate_tensors)
