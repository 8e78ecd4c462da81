import torch


class MicroBatch:
    def __init__(self, requests, kv_cache_manager):
        self.requests = requests
        self.kv_cache_manager = kv_cache_manager


class PPExecutor:
    def __init__(self, model, kv_cache_manager, num_micro_batches=2):
        self.model = model
        self.kv_cache_manager = kv_cache_manager
        self.num_micro_batches = num_micro_batches

    def _forward_step(self, scheduled_requests):
        outs = []
        for mb in self._split(scheduled_requests):
            outs.append(self._run_micro_batch(mb))
        return outs

    def _split(self, reqs):
        step = max(1, len(reqs) // self.num_micro_batches)
        return [MicroBatch(reqs[i:i + step], self.kv_cache_manager) for i in range(0, len(reqs), step)]

    def _run_micro_batch(self, mb):
        first = self.model.pp_layer_ids[0]
        buf = mb.kv_cache_manager.get_buffers(first)
        recv = buf.to(torch.bfloat16)  # positive: f1 CL001 whole layer buffer of the stage's first layer, per micro batch
        block_ids = mb.kv_cache_manager.get_batch_cache_indices([r.py_request_id for r in mb.requests])
        blocks = buf[torch.tensor(block_ids[0])].to(torch.bfloat16)  # negative: one request's blocks
        last = mb.kv_cache_manager.get_buffers(self.model.pp_layer_ids[-1]).to(torch.bfloat16)  # positive: f1 CL001 stage's last layer, whole, per micro batch
        return self.model.forward(recv, blocks, last)
