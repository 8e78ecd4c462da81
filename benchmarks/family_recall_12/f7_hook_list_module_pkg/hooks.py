import torch

PRE_ATTN = []
POST_ATTN = []


def register(fn):
    PRE_ATTN.append(fn)
    return fn


def register_post(fn):
    POST_ATTN.append(fn)
    return fn


def run_pre(kbuf, dtype):
    out = kbuf
    for h in PRE_ATTN:
        out = h(out, dtype)
    return out


def run_post(o):
    for h in POST_ATTN:
        o = h(o)
    return o
