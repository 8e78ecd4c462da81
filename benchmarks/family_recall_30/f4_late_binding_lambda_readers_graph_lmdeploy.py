"""lmdeploy CUDA graph runner: reader lambdas made in a comprehension in capture (late-binding over i) are called at every replay."""
import torch

from lmdeploy.pytorch.backends.cuda.graph_runner import CUDAGraphRunner


class DenseReplayGraphRunner(CUDAGraphRunner):
    def capture(self, **kwargs):
        caches = kwargs["past_key_values"]
        n = len(caches)
        self.readers = [lambda: caches[i][0].to(torch.float16) for i in range(n)]  # positive: f4 CL001 whole key cache (late binding: every lambda reads the last i), called per replay
        self.row_readers = [lambda blocks, i=i: caches[i][0][blocks].to(torch.float16) for i in range(n)]  # negative: blocks
        self.static_k = [torch.empty_like(caches[i][0], dtype=torch.float16) for i in range(n)]  # negative: allocation at capture
        return super().capture(**kwargs)

    def __call__(self, **kwargs):
        for dst, read in zip(self.static_k, self.readers):
            dst.copy_(read())
        offs = kwargs["block_offsets"]
        self.static_inputs["block_offsets"][: offs.size(0)].copy_(offs.to(torch.int32))  # negative: page table
        return super().__call__(**kwargs)

    def tail(self, blocks):
        return [read(blocks) for read in self.row_readers]
