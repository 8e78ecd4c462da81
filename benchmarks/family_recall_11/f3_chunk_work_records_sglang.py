from typing import NamedTuple

import torch


class ChunkWork(NamedTuple):
    layer_id: int
    start: int
    end: int
    whole: bool


class ChunkedPrefillBackend:
    def init_forward_metadata(self, forward_batch):
        n = forward_batch.extend_num_tokens
        self.chunks = [ChunkWork(-1, s, min(s + 8192, n), False) for s in range(0, n, 8192)]
        self.prefix_lens = forward_batch.extend_prefix_lens.to(torch.int32)  # negative: lengths

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        works = [c._replace(layer_id=layer.layer_id) for c in self.chunks]
        if forward_batch.extend_prefix_lens_cpu and max(forward_batch.extend_prefix_lens_cpu) > 0:
            works.append(ChunkWork(layer.layer_id, 0, kbuf.shape[0], True))
        parts = []
        for w in works:
            if w.whole:
                parts.append(kbuf[w.start : w.end].to(q.dtype))  # positive: f3 CL001 the prefix record spans 0..shape[0], i.e. the whole buffer
            else:
                parts.append(k[w.start : w.end].to(q.dtype))  # negative: chunk of the step's keys
        return parts
