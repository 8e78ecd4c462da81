"""sglang-style torch decode: cast-then-lookup vs lookup-then-cast with embedding/index_select/gather."""
import torch
import torch.nn.functional as F


class TorchGatherDecodeBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        v_buf = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        loc = forward_batch.kv_loc_flat
        if forward_batch.use_embedding_lookup:
            keys = F.embedding(loc, k_buf.flatten(1).float())  # positive: f5 CL001 cast before the lookup converts every slot
            values = F.embedding(loc, v_buf.flatten(1)).float()  # negative: lookup first, then the rows are cast
        else:
            keys = torch.index_select(k_buf.to(q.dtype), 0, loc)  # positive: f5 CL001 whole layer cast, then selected
            idx = loc.view(-1, 1, 1).expand(-1, v_buf.shape[1], v_buf.shape[2])
            values = torch.gather(v_buf.view(torch.uint8), 0, idx).view(v_buf.dtype).to(q.dtype)  # negative: rows gathered as bytes, then cast
        return self._sdpa(q, keys, values, forward_batch)

    def _sdpa(self, q, keys, values, forward_batch):
        return q
