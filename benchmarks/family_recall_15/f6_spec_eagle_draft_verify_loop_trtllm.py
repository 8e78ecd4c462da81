import torch


class TwoModelDraftVerifyLoop:
    def __init__(self, draft_engine, target_engine, draft_manager, max_draft_len):
        self.draft_engine = draft_engine
        self.target_engine = target_engine
        self.draft_manager = draft_manager
        self.max_draft_len = max_draft_len

    def _forward_step(self, scheduled_requests, resource_manager):
        tokens = []
        for step in range(self.max_draft_len):
            layer0 = self.draft_manager.get_buffers(0)
            dense0 = layer0.to(torch.bfloat16)  # positive: f6 CL001 every draft step widens the draft manager's whole layer
            dense1 = self.draft_manager.get_buffers(1).to(torch.bfloat16)  # positive: f6 CL001 second draft layer, whole
            tokens.append(self.draft_engine.forward(scheduled_requests, dense0))
        accepted = self.target_engine.forward(scheduled_requests, resource_manager, torch.stack(tokens))
        blk = scheduled_requests.draft_block_ids
        rewind = self.draft_manager.get_buffers(0)[blk].to(torch.bfloat16)  # negative: rewound blocks only
        probs = torch.stack(tokens).float()  # negative: draft tokens
        return accepted, rewind, probs
