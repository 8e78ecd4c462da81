import functools

import torch


def compose(*fns):
    return functools.reduce(lambda f, g: lambda x: g(f(x)), fns)


def key_plane(buf):
    return buf[:, 0]


def widen(buf):
    return buf.to(torch.float16)  # positive: f7 CL001 last stage: the whole key plane of the layer, each replay


def last_block(ids):
    def _pick(buf):
        return buf[ids]
    return _pick
