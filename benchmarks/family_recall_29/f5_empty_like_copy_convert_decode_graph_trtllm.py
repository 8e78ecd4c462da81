"""TensorRT-LLM SM75 generation inside the decode CUDA graph: empty_like(dtype=).copy_(buf) converts every step."""
import torch


class TuringGenerationAttention:
    def __init__(self, layer_idx, manager, dtype=torch.float16):
        self.layer_idx, self.dtype = layer_idx, dtype
        self.scratch = torch.empty_like(manager.get_buffers(layer_idx), dtype=dtype)  # negative: allocation at construction

    def forward_generation(self, q, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = torch.empty_like(buf, dtype=self.dtype).copy_(buf)  # positive: f5 CL001 copy_ into a new fp16 tensor converts the whole layer, per captured step
        ids = metadata.kv_cache_block_offsets[0]
        self.scratch[: ids.numel()].copy_(buf[ids])  # negative: blocks gathered first
        return self._reference(q, dense, metadata)


class DecodeGraphRunner:
    def __init__(self, model, batch_size):
        self.model, self.batch_size = model, batch_size
        self.graph = torch.cuda.CUDAGraph()

    def capture(self, inputs, metadata):
        with torch.cuda.graph(self.graph):
            self.output = self.model(inputs, metadata)

    def replay(self, inputs, metadata):
        self.static_ids.copy_(inputs["input_ids"].to(torch.int32))  # negative: token ids
        self.graph.replay()
        return self.output
