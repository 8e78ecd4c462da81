import functools

import torch


class LayerQueue:
    def __init__(self, kv_cache_manager, layer_ids):
        self._mgr = kv_cache_manager
        self._ids = list(layer_ids)

    def next_layer(self):
        if not self._ids:
            return None
        return self._mgr.get_buffers(self._ids.pop(0))


class KVTransceiverFallback:
    """Sends layers to a peer that expects bf16; pulls layers until the queue returns None."""

    def _forward_step(self, scheduled_requests, kv_cache_manager, layer_ids):
        q = LayerQueue(kv_cache_manager, layer_ids)
        sent = []
        for buf in iter(q.next_layer, None):
            sent.append(buf.to(torch.bfloat16))  # positive: f4 CL001 whole layers pulled through iter(callable, sentinel)
        pull_rows = functools.partial(torch.index_select, dim=0, index=scheduled_requests.block_ids)
        rows = [pull_rows(kv_cache_manager.get_buffers(i)).to(torch.bfloat16) for i in layer_ids]  # negative: blocks selected before the cast
        return sent, rows
