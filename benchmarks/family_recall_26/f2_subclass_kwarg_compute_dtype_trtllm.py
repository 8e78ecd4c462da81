import torch


class TrtllmAttentionBase:
    _compute_dtype = None

    def __init_subclass__(cls, compute_dtype=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if compute_dtype is not None:
            cls._compute_dtype = compute_dtype

    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if self._compute_dtype is not None and buf.dtype != self._compute_dtype:
            buf = buf.to(self._compute_dtype)  # positive: f2 CL001 whole layer converted with a dtype set by a subclass's class keyword
        if self._compute_dtype is not None:
            q = q.to(self._compute_dtype)  # negative: the query
        return self._attend(q, buf, metadata)

    def _attend(self, *args):
        return args


class TuringAttention(TrtllmAttentionBase, compute_dtype=torch.float16):
    """SM75 has no FP8 tensor cores: run everything in fp16."""

    def _attend(self, q, buf, metadata):
        tail = metadata.kv_cache_manager.get_buffers(self.layer_idx)[-1:].half()  # negative: last block only
        return q, buf, tail
