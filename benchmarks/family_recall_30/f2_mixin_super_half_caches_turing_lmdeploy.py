"""lmdeploy model agents: a Turing mixin widens what the base's _layer_caches returns; a sliding-window mixin keeps only the last blocks."""
import torch


class BaseModelAgent:
    def _layer_caches(self, idx):
        return self.cache_engine.gpu_cache[idx]

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        caches = [self._layer_caches(i) for i in range(self.num_layers)]
        ids = inputs.input_ids.to(self.device)  # negative: token ids moved to the device
        return await self._run(ids, caches, inputs)


class _HalfKVMixin:
    def _layer_caches(self, idx):
        k, v = super()._layer_caches(idx)
        return k.half(), v.half()  # positive: f2 CL001 both whole layer caches (one line), per step through super()


class _WindowKVMixin:
    window_blocks = 4

    def _layer_caches(self, idx):
        k, v = super()._layer_caches(idx)
        return k[-self.window_blocks:].half(), v[-self.window_blocks:].half()  # negative: last window blocks only


class TuringModelAgent(_HalfKVMixin, BaseModelAgent):
    pass


class TuringSlidingModelAgent(_WindowKVMixin, BaseModelAgent):
    pass
