import torch

STEP_HOOKS = {}


def step_hook(name):
    def deco(fn):
        STEP_HOOKS[name] = fn
        return fn
    return deco


@step_hook("fp32_shadow")
def fp32_shadow(kv_caches, ctx):
    return [c.to(torch.float32) for c in kv_caches]  # positive: f7 CL001 run by runner.execute_model on the runner's kv_caches


@step_hook("touched_blocks")
def touched_blocks(kv_caches, ctx):
    return [c[:, ctx.block_ids].to(torch.float32) for c in kv_caches]  # negative: block gather


@step_hook("bf16_keys")
def bf16_keys(kv_caches, ctx):
    return [c[0].to(torch.bfloat16) for c in kv_caches]  # positive: f7 CL001 key plane of each [2, blocks, ...] cache, every block


def run_step_hooks(names, kv_caches, ctx):
    return {n: STEP_HOOKS[n](kv_caches, ctx) for n in names}
