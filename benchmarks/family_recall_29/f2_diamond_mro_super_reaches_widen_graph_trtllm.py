"""TensorRT-LLM decode graph runner: diamond inheritance; LoggedRunner's super() lands in WidenRunner."""
import torch


class _RunnerBase:
    def _stage_kv(self, buf: torch.Tensor) -> torch.Tensor:
        return buf


class _LoggedRunner(_RunnerBase):
    def _stage_kv(self, buf):
        self.stats["staged"] += 1
        return super()._stage_kv(buf)


class _WidenRunner(_RunnerBase):
    def _stage_kv(self, buf):
        return super()._stage_kv(buf).to(torch.bfloat16)  # positive: f2 CL001 whole layer buffer, reached from _LoggedRunner through the MRO


class SM89DecodeGraphRunner(_LoggedRunner, _WidenRunner):
    def __init__(self, manager, num_layers):
        self.manager, self.num_layers, self.stats = manager, num_layers, {"staged": 0}
        self.static = [torch.empty_like(manager.get_buffers(i), dtype=torch.bfloat16) for i in range(num_layers)]  # negative: allocation

    def replay(self, batch):
        for i in range(self.num_layers):
            self.static[i].copy_(self._stage_kv(self.manager.get_buffers(i)))
        first_block = self.manager.get_buffers(0)[0].to(torch.bfloat16)  # negative: one block
        self.graph.replay()
        return first_block
