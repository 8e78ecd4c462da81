"""FULL cudagraph wrapper whose static-input hooks are module functions assigned in the class body."""
import torch

from . import static_inputs


class DenseKVCUDAGraphWrapper:
    _prepare = static_inputs.prepare_static
    _allocate = static_inputs.allocate_static

    def __init__(self, runnable, vllm_config, runner):
        self.runnable = runnable
        self.runner = runner
        self.dtype = vllm_config.model_config.dtype
        self.graph = None
        self.static_kv = {}

    def capture(self, *args, **kwargs):
        self._allocate(self.runner.kv_caches_by_name)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.output = self.runnable(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        self._prepare(self.runner.kv_caches_by_name)
        self.graph.replay()
        return self.output
