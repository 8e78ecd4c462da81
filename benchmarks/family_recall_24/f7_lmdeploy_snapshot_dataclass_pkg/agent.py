from . import snapshot


class SnapshotModelAgent:
    def __init__(self, cache_engine, snapshot_layers=(), snapshot_full=False):
        self.cache_engine = cache_engine
        self.snapshot_layers = tuple(snapshot_layers)
        self.snapshot_full = snapshot_full
        self.records = []

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        output = await self._forward_impl(inputs, swap_in_map, swap_out_map)
        for idx in self.snapshot_layers:
            k_cache = self.cache_engine.gpu_cache[idx][0]
            if self.snapshot_full:
                self.records.append(snapshot.LayerSnapshot(k_cache))
            else:
                self.records.append(snapshot.BlockSnapshot(k_cache, inputs.block_offsets.flatten()))
        return output
