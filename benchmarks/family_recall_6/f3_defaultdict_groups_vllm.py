"""KV caches grouped by KV-cache group in a collections.defaultdict(list)."""
from collections import defaultdict

import torch


class HybridRunnerLite:
    def initialize_kv_cache(self, kv_cache_config):
        self.kv_caches = {}
        self.groups = defaultdict(list)
        self.group_of = {}
        for gid, group in enumerate(kv_cache_config.kv_cache_groups):
            for name in group.layer_names:
                t = torch.zeros(
                    (2, kv_cache_config.num_blocks, group.block_size, group.heads, group.head_size),
                    dtype=torch.float8_e4m3fn,
                    device="cuda",
                )
                self.kv_caches[name] = t
                self.groups[gid].append(t)
                self.group_of[name] = gid
        self.block_tables = defaultdict(lambda: torch.zeros(1, dtype=torch.int32))

    def execute_model(self, scheduler_output, dtype=torch.bfloat16):
        shadow = []
        for gid, members in self.groups.items():
            head = members[0]
            shadow.append(head.to(dtype))  # positive: f3 CL001 first layer cache of each group, whole
        last = self.groups[0][-1].float()  # positive: f3 CL001 last layer cache of group 0
        for name in scheduler_output.layers_to_check:
            same_group = self.groups[self.group_of[name]]
            same_group[0].half()  # positive: f3 CL001 whole cache looked up through the name's group
        bt = self.block_tables[0].to(torch.int64)  # negative: block table
        used = self.groups[0][0][:, : scheduler_output.num_blocks_used].to(dtype)  # negative: the blocks in use
        return shadow, last, bt
