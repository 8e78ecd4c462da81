import itertools

import torch


class TwoModelSpecExecutor:
    def __init__(self, target_manager, draft_manager, num_target_layers, num_draft_layers):
        self.target = target_manager
        self.draft = draft_manager
        self.nt = num_target_layers
        self.nd = num_draft_layers

    def _all_layers(self):
        return itertools.chain(
            (self.target.get_buffers(i) for i in range(self.nt)),
            (self.draft.get_buffers(i) for i in range(self.nd)),
        )

    def _forward_step(self, scheduled_requests, new_tokens_device=None):
        draft_bufs = itertools.islice(self._all_layers(), self.nt, None)
        widened = [b.to(torch.bfloat16) for b in draft_bufs]  # positive: f3 CL001 each draft manager layer, whole
        targets = [b.half() for b in itertools.islice(self._all_layers(), 0, self.nt)]  # positive: f3 CL001 target manager layers, whole
        first = next(itertools.islice(self._all_layers(), 0, 1))
        head = first[: scheduled_requests.num_blocks].to(torch.bfloat16)  # negative: block prefix
        return self._draft_forward(widened, head)

    def _draft_forward(self, layers, head):
        return len(layers)
