import torch


class PPStageKVDumper:
    """Pipeline-parallel rank: layers owned by other stages are None holes in the list."""

    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.keys = [
            pool.get_key_buffer(i) if pool.start_layer <= i < pool.end_layer else None
            for i in range(model_runner.model_config.num_hidden_layers)
        ]
        self.dtype = model_runner.dtype

    def dump(self, forward_batch):
        owned = [k for k in self.keys if k is not None]
        wide = [k.to(self.dtype) for k in owned]  # positive: f3 CL001 every owned whole key layer converted
        rows = [k[forward_batch.out_cache_loc].to(self.dtype) for k in owned]  # negative: rows gathered before the cast
        return wide, rows


class PPModelRunner:
    def forward(self, forward_batch, pp_proxy_tensors=None):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch, pp_proxy_tensors)
        self.dumper.dump(forward_batch)
        return out
