import torch


class Eagle3AuxReader:
    """Reads the target's last attention layer cache for a bf16 drafter head."""

    def __init__(self, runner):
        self.runner = runner

    def execute_model(self, scheduler_output, block_table):
        caches = self.runner.kv_caches
        last = caches[-1]
        last_wide = last.to(torch.bfloat16)  # positive: f3 CL001 whole last-layer cache via a negative list index
        first_key = caches[0][0].to(torch.bfloat16)  # positive: f3 CL001 whole key plane of the first layer
        tail = last[:, -4:].to(torch.bfloat16)  # negative: last four blocks only (tensor tail, not list)
        table = block_table.to(self.runner.device)  # negative: device move
        return last_wide, first_key, tail, table
