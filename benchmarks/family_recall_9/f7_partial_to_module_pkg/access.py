import functools

import torch

to_half = functools.partial(torch.Tensor.to, dtype=torch.float16)
to_bf16 = functools.partial(torch.Tensor.to, dtype=torch.bfloat16, non_blocking=True)
to_long = functools.partial(torch.Tensor.to, dtype=torch.int64)
