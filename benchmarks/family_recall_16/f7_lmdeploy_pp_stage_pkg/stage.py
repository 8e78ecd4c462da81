from .transfer import pack_blocks, pack_stage_layer


class PipelineStageAgent:
    def __init__(self, cache_engine, first_layer, last_layer, comm):
        self.cache_engine = cache_engine
        self.first_layer = first_layer
        self.last_layer = last_layer
        self.comm = comm

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        for idx in range(self.last_layer - self.first_layer):
            caches = self.cache_engine.gpu_cache[idx]
            if inputs.stage_handoff:
                self.comm.send(pack_stage_layer(caches))
            elif inputs.migrate_blocks is not None:
                self.comm.send(pack_blocks(caches, inputs.migrate_blocks))
        return inputs
