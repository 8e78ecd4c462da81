import torch


class CUDAGraphRunner:
    def __init__(self, model, cache_config, backend_config):
        self.model = model
        self._runner_map: dict[int, dict] = {}
        self.compute_dtype = torch.float16

    def capture(self, batch_size, past_key_values):
        self._runner_map[batch_size] = {
            "caches": [(k.to(self.compute_dtype), v.to(self.compute_dtype)) for k, v in past_key_values],  # negative: capture, setup
        }

    def forward(self, input_ids, position_ids, past_key_values, attn_metadata):
        bs = input_ids.size(0)
        slot = self._runner_map.get(bs)
        if slot is None:
            return self.model(input_ids, position_ids, past_key_values, attn_metadata)
        for (static_k, static_v), (k, v) in zip(slot["caches"], past_key_values):
            static_k.copy_(k.to(self.compute_dtype))  # positive: f3 CL001 whole key cache per replay into the per-batch-size static list
            static_v.copy_(v.to(self.compute_dtype))  # positive: f3 CL001 whole value cache per replay
        ids = input_ids.to(torch.long)  # negative: token ids
        return ids
