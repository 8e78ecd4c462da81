# The case template of round 14, reused unchanged by round 15 (shared by _cases_h.py and _cases_s.py): an attention
# backend (DecodeBackend) whose forward_decode casts the layer's whole K buffer, runs `between` (engine code
# reaching the pool through objects that run_case builds with `setup`), then gathers. `fd` replaces the whole
# body of forward_decode where the cast or the gather needs another shape (a with block, a local dtype set
# before the cast, ...). run_case optionally wraps the call in `call_wrap` (a with statement) and restores
# process state in `finally_`; `after` runs after the call.
import textwrap

FP8_POOL = "MHATokenToKVPool(16, 2, 4, 2)"
BF16_POOL = "MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)"
FB = "ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))"
RESULT = '{"out": out, "k": pool.k_buffer, "v": pool.v_buffer}'
ROW = "torch.full((2, 4), 3.0)"
ROW1 = "torch.full((1, 2, 4), 3.0)"
# Casts and gathers rotate over the cases that do not name their own.
CASTS = [".to(torch.bfloat16)", ".bfloat16()", ".half()", ".float()", ".to(dtype=torch.float16)",
         ".to(torch.float32)", ".type(torch.bfloat16)", ".double()", ".to(torch.bfloat16, copy=True)",
         ".to(torch.float16, non_blocking=False)", ".to(dtype=torch.bfloat16)"]
GATHERS = ["k[kv_indices]", "k.index_select(0, kv_indices)", "torch.index_select(k, 0, kv_indices)",
           "k[kv_indices, :, :]", "k[forward_batch.kv_indices]", "k[kv_indices].reshape(2, -1)"]


def ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def render(index, prelude, between, *, setup="helper = None", init="", methods="", cls_attrs="", cast=None,
           gather=None, ret="0", pool=FP8_POOL, fb=FB, result=RESULT, imports="", layer="RadixLayer(1)",
           finally_="", pre="", fd=None, call_wrap=None, q="_rand((2, 2, 4), 5)", after=""):
    cast = cast or CASTS[index % len(CASTS)]
    gather = gather or GATHERS[index % len(GATHERS)]
    parts = [textwrap.dedent(imports).strip("\n"), textwrap.dedent(prelude).strip("\n")]
    head = "\n\n\n".join(p for p in parts if p)
    if fd is None:
        lines = []
        if pre.strip():
            lines.append(textwrap.dedent(pre).strip("\n") + ("\n" if "def " in pre else ""))
        lines.append(f"k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}")
        lines.append("kv_indices = forward_batch.kv_indices")
        lines.append(textwrap.dedent(between).strip("\n"))
        lines.append(f"return {gather}, {ret}")
        fd = "\n".join(lines)
    cls_block = ("\n" + ind(cls_attrs, 4) + "\n") if cls_attrs.strip() else ""
    init_block = ("\n" + ind(init, 8)) if init.strip() else ""
    methods_block = ("\n\n" + ind(methods, 4)) if methods.strip() else ""
    call = f"out = backend.forward_decode({q}, {layer}, fb)"
    if call_wrap:
        call = f"with {call_wrap}:\n    {call}"
    after_block = ("\n" + textwrap.dedent(after).strip("\n")) if after.strip() else ""
    body = f"""pool = {pool}
fb = {fb}
{textwrap.dedent(setup).strip(chr(10))}
backend = DecodeBackend(pool, helper)
{call}{after_block}
return {result}"""
    if finally_.strip():
        run_body = "    try:\n" + ind(body, 8) + "\n    finally:\n" + ind(finally_, 8)
    else:
        run_body = ind(body, 4)
    return f'''{head}


class DecodeBackend:{cls_block}
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper{init_block}

    def forward_decode(self, q, layer, forward_batch):
{ind(fd, 8)}{methods_block}


def run_case(torch):
{run_body}
'''
