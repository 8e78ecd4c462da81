import dataclasses

import torch


@dataclasses.dataclass(eq=False)
class ChunkState:
    pool: object
    start: int
    end: int
    compute_dtype: torch.dtype


class ChunkedPrefixBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.state = None

    def init_forward_metadata(self, forward_batch):
        self.state = ChunkState(forward_batch.token_to_kv_pool, 0, forward_batch.seq_lens_sum, self.model_runner.dtype)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        st = self.state
        outs = []
        for lo in range(st.start, st.end, 4096):
            hi = min(lo + 4096, st.end)
            prefix = st.pool.get_key_buffer(layer.layer_id)[lo:hi].to(st.compute_dtype)  # negative: one chunk of rows
            outs.append(self._attend(q, prefix))
        whole = st.pool.get_key_buffer(layer.layer_id).to(st.compute_dtype)  # positive: f1 CL001 pool carried in a per-step state object
        vwhole = st.pool.get_value_buffer(layer.layer_id).to(st.compute_dtype)  # positive: f1 CL001 value buffer, same state object
        return torch.cat(outs) if outs else self._attend(q, whole)

    def _attend(self, q, kv):
        return q
