import torch


class MigrationSender:
    """PD disaggregation (prefill side): pushes each layer to the decode engine after the step."""

    def __init__(self, cache_engine, wire_dtype, p2p):
        self.cache_engine = cache_engine
        self.wire_dtype = wire_dtype
        self.p2p = p2p

    def send_step(self, block_offsets):
        for idx, (k_cache, v_cache) in enumerate(self.cache_engine.gpu_cache):
            if self.p2p.peer_supports(k_cache.dtype):
                self.p2p.send(k_cache[block_offsets])  # negative: no conversion, gathered blocks
            else:
                self.p2p.send(k_cache.to(self.wire_dtype))  # positive: f6 CL001 whole key cache converted to the wire dtype
                self.p2p.send(v_cache[block_offsets].to(self.wire_dtype))  # negative: gathered blocks


class PrefillModelAgent:
    def __init__(self, sender):
        self.sender = sender

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        out = await self._forward_impl(inputs)
        self.sender.send_step(inputs.block_offsets)
        return out
