import torch
import torch.nn.functional as F


class PaddedHeadDimDecode:
    """head_dim 80 is padded to 96 for the kernel, in the query dtype."""

    pad = 16

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        v_buf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        k_pad = F.pad(k_buf.to(q.dtype), (0, self.pad))  # positive: f5 CL001 whole key pool widened then padded
        v_pad = F.pad(v_buf.half(), pad=(0, self.pad)).to(q.dtype)  # positive: f5 CL001 whole value pool to fp16, padded
        k_clamped = torch.clamp(k_buf.float(), -448.0, 448.0)  # positive: f5 CL001 whole key pool to fp32 for clamping
        v_live = F.pad(v_buf[forward_batch.out_cache_loc].to(q.dtype), (0, self.pad))  # negative: rows
        q_pad = F.pad(q, (0, self.pad)).float()  # negative: the query
        return k_pad, v_pad, k_clamped, v_live, q_pad
