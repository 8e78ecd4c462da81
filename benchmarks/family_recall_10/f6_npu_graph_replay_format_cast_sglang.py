"""An sglang Ascend (npu) graph runner: replay upcasts each layer; npu_format_cast is a format change only."""
import torch
import torch_npu


class NPUGraphRunnerLike:
    def __init__(self, model_runner, dtype):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = dtype
        self.graphs = {}
        self.static = {}

    def capture(self, bs, layer_ids):
        self.static[bs] = {i: self.pool.get_key_buffer(i).to(self.dtype) for i in layer_ids}  # negative: capture, one-time
        self.graphs[bs] = torch.npu.NPUGraph()

    def replay(self, forward_batch, layer_ids):
        bs = forward_batch.batch_size
        for i in layer_ids:
            nz = torch_npu.npu_format_cast(self.pool.get_key_buffer(i), 29)  # negative: ACL format cast, dtype kept
            self.static[bs][i].copy_(nz.to(self.dtype))  # positive: f6 CL001 replay converts the whole (format-cast) layer
        seq = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        self.graphs[bs].replay()
        return seq
