import torch


class GraphBackendBase:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graph_kv = {}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, *args):
        self.graph_kv[bs] = [self.pool.get_key_buffer(i).to(self.dtype) for i in range(self.pool.layer_num)]  # negative: made once at capture

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, *args):
        self._refresh(bs)
        self.seq_lens_i32 = seq_lens.to(torch.int32)  # negative: lengths at replay

    def _refresh(self, bs):
        pass


class AscendGraphBackend(GraphBackendBase):
    def _refresh(self, bs):
        for i, dst in enumerate(self.graph_kv[bs]):
            dst.copy_(self.pool.get_key_buffer(i))  # positive: f2 CL001 copy_ of a whole fp8 layer into the bf16 graph copy (subclass replay hook)
