import torch

from . import sinks


class MirrorModelRunner:
    """Pushes every layer's cache into a primed generator from the sibling module, once per step."""

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        out = self.model(scheduler_output)
        sink = sinks.layer_sink(torch.bfloat16)
        next(sink)
        mirrored = [sink.send(kv_cache) for kv_cache in self.kv_caches]
        vsink = sinks.value_plane_sink(torch.bfloat16)
        next(vsink)
        values = [vsink.send(kv_cache) for kv_cache in self.kv_caches]
        picker = sinks.block_picker(scheduler_output.block_ids, torch.bfloat16)
        next(picker)
        picked = picker.send(self.kv_caches[0])
        return out, mirrored, values, picked
