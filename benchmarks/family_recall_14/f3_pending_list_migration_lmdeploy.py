"""PD migration: layers are queued on a pending list and drained (pop) in the same forward."""
import torch


class MigrationStager:
    def __init__(self, cache_engine, wire_dtype=torch.float16):
        self.gpu_cache = cache_engine.gpu_cache
        self.wire_dtype = wire_dtype
        self._pending = []

    def mark(self, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx][:2]
        self._pending.append((layer_idx, k_cache, v_cache))

    def flush(self):
        out = {}
        while self._pending:
            idx, k_cache, v_cache = self._pending.pop()
            k_wire = k_cache.to(self.wire_dtype)  # positive: f3 CL001 whole key cache popped from the pending list
            v_wire = v_cache.to(self.wire_dtype)  # positive: f3 CL001 whole value cache popped from the pending list
            out[idx] = (k_wire, v_wire)
        return out


class ModelAgentWithMigration:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        output = await self._forward_impl(inputs, swap_in_map, swap_out_map)
        for idx in inputs.migrated_layers:
            self.stager.mark(idx)
        payload = self.stager.flush()
        blocks = inputs.block_offsets.to(torch.int32)  # negative: block table
        await self.migration_sender.send(payload, blocks)
        return output
