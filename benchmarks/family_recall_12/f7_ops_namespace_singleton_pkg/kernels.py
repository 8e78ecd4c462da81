import torch


class _Ops:
    upcast = staticmethod(lambda t, dt: t.to(dt))  # positive: f7 CL001 lambda of a namespace singleton, only ever given whole manager buffers
    offsets = staticmethod(lambda o: o.to(torch.int32))  # negative: block offsets

    def name(self):
        return "torch"


ops = _Ops()


def backend_name():
    return ops.name()
