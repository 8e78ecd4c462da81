import torch


class ChildFlashInferMLA:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        self.kv_indptr = forward_batch.kv_indptr.to(torch.int32)  # negative: indptr of the micro-batch

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return ckv.to(q.dtype)  # positive: f6 CL001 child backend of a two-batch-overlap wrapper upcasts the whole pool


class TboAttnBackend:
    def __init__(self, primary, children):
        self.primary = primary
        self.children = children

    def init_forward_metadata(self, forward_batch):
        self.primary.init_forward_metadata(forward_batch)
        for child, sub in zip(self.children, forward_batch.tbo_children or []):
            child.init_forward_metadata(sub)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.primary.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_q = torch.zeros(max_bs, 16, 576).to(torch.bfloat16)  # negative: one-time graph state
