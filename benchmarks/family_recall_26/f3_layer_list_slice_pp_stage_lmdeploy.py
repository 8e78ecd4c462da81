import torch


class PipelineStageAgent:
    """A pipeline stage owns layers [start, end) of lmdeploy's past_key_values list."""

    def __init__(self, model, cache_engine, start, end):
        self.model = model
        self.cache_engine = cache_engine
        self.start, self.end = start, end

    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        past_key_values = self.cache_engine.gpu_cache
        stage = []
        for k_cache, v_cache in past_key_values[self.start:self.end]:
            stage.append((k_cache.half(), v_cache.half()))  # positive: f3 CL001 a slice of the layer list keeps each layer whole (one line, one finding)
        k0 = past_key_values[self.start][0]
        head = k0[self.start:self.end].half()  # negative: the same slice on a tensor selects blocks
        return self.model(inputs.input_ids, past_key_values=stage, head=head)

    def warm(self):
        return [k.half() for k, _ in self.cache_engine.gpu_cache]  # negative: only called at setup
