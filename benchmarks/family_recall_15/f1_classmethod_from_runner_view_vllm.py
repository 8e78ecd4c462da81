import torch


class RunnerKVView:
    __slots__ = ("caches", "names")

    def __init__(self, caches, names):
        self.caches = caches
        self.names = names

    @classmethod
    def from_runner(cls, runner):
        return cls(runner.kv_caches, list(runner.attn_layer_names))

    def layer(self, idx):
        return self.caches[idx]


class KVDigestRunner:
    def __init__(self, vllm_config):
        self.kv_caches = []
        self.attn_layer_names = []
        self.model_dtype = vllm_config.model_config.dtype

    def initialize_kv_cache(self, kv_cache_config):
        view = RunnerKVView.from_runner(self)
        self._zero = [view.layer(i).to(self.model_dtype) for i in range(len(view.caches))]  # negative: one-time setup

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        view = RunnerKVView.from_runner(self)
        first = view.layer(0).to(self.model_dtype)  # positive: f1 CL001 the runner's whole layer cache through a classmethod-built view
        last = view.layer(-1).float()  # positive: f1 CL001 last layer, whole
        blocks = scheduler_output.block_ids
        sampled = view.layer(1)[:, blocks].to(self.model_dtype)  # negative: block gather
        shape = torch.tensor(view.layer(0).shape, dtype=torch.int64)  # negative: shape only
        return first, sampled, shape
