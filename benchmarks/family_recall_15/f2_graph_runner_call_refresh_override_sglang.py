import torch


class DecodeGraphRunnerBase:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.graphs = {}
        self.shadow = {}

    def capture(self):
        pool = self.model_runner.token_to_kv_pool
        for lid in range(pool.start_layer, pool.end_layer):
            self.shadow[lid] = pool.get_key_buffer(lid).to(torch.bfloat16)  # negative: capture-time fill
        return self.shadow

    def _refresh(self, pool, layer_id):
        pass

    def __call__(self, forward_batch):
        pool = self.model_runner.token_to_kv_pool
        for lid in range(pool.start_layer, pool.end_layer):
            self._refresh(pool, lid)
        return self.graphs[forward_batch.batch_size].replay()


class Bf16ShadowGraphRunner(DecodeGraphRunnerBase):
    def _refresh(self, pool, layer_id):
        self.shadow[layer_id].copy_(pool.get_key_buffer(layer_id))  # positive: f2 CL001 per-replay copy into the bf16 shadow, via the overridden hook
        self.shadow[-layer_id - 1] = pool.get_value_buffer(layer_id).to(torch.bfloat16)  # positive: f2 CL001 value buffer widened at every replay


class NativeGraphRunner(DecodeGraphRunnerBase):
    def _refresh(self, pool, layer_id):
        self.shadow[layer_id] = pool.get_key_buffer(layer_id)  # negative: aliasing, no conversion
