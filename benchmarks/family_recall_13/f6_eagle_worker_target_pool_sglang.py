import torch


class EAGLEWorkerDebug:
    def __init__(self, server_args, target_worker, draft_model_runner):
        self.target_worker = target_worker
        self.draft_model_runner = draft_model_runner
        self.speculative_num_steps = server_args.speculative_num_steps
        self.check_layers = server_args.spec_check_layers or []

    def forward_batch_speculative_generation(self, batch):
        out = self.verify(batch)
        pool = self.target_worker.model_runner.token_to_kv_pool
        for lid in self.check_layers:
            k = pool.get_key_buffer(lid)
            self.stats[lid] = k.float().abs().max()  # positive: f6 CL001 target pool layer upcast after verify, every step
        accept = out.accept_length_per_req_cpu
        self.accept_hist = torch.tensor(accept, dtype=torch.float32)  # negative: accept lengths
        return out

    def verify(self, batch):
        spec_info = batch.spec_info
        draft = spec_info.draft_token.to(torch.int64)  # negative: draft tokens
        return self.target_worker.forward_batch_generation(batch, draft)
