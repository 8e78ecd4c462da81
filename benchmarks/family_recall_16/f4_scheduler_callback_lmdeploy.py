import torch


class Scheduler:
    def __init__(self):
        self.step_callbacks = []

    def add_step_callback(self, cb):
        self.step_callbacks.append(cb)

    def on_step(self, step):
        for cb in self.step_callbacks:
            cb(step)


class EngineKVProbe:
    def __init__(self, engine):
        self.engine = engine
        engine.scheduler.add_step_callback(self.probe)

    def probe(self, step):
        k, _ = self.engine.cache_engine.gpu_cache[step % self.engine.num_layers]
        return k.to(torch.float32).abs().max()  # positive: f4 CL001 whole layer in a scheduler step callback

    def probe_seq(self, seq):
        k, _ = self.engine.cache_engine.gpu_cache[0]
        return k[seq.logical_blocks.get_real_blocks()].to(torch.float32)  # negative: one sequence's blocks


class Engine:
    async def _async_loop_main(self, inputs):
        out = await self.executor.forward_async(inputs)
        self.scheduler.on_step(inputs.step)
        return out
