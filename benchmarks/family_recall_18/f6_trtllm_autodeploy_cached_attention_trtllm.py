"""TensorRT-LLM AutoDeploy-style torch cached-attention op over per-sequence caches [max_batch, max_seq, h, d]."""
import torch


@torch.library.custom_op("auto_deploy::torch_fallback_mha_with_cache", mutates_args=())
def torch_fallback_mha_with_cache(q: torch.Tensor, batch_info: torch.Tensor, cache_loc: torch.Tensor, input_pos: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor) -> torch.Tensor:
    num_prefill = int(batch_info[0])
    if num_prefill == 0:
        k_all = k_cache.to(q.dtype)  # positive: f6 CL001 every sequence slot widened before picking this batch's rows
        v_all = v_cache.to(q.dtype)  # positive: f6 CL001 whole value cache widened
        return _decode(q, k_all[cache_loc], v_all[cache_loc])
    outs = []
    for i in range(num_prefill):
        slot, end = int(cache_loc[i]), int(input_pos[i]) + 1
        k_seq = k_cache[slot, :end].to(q.dtype)  # negative: one sequence's prefix
        v_seq = v_cache[slot, :end].to(q.dtype)  # negative: one sequence's prefix
        outs.append(_decode(q[i : i + 1], k_seq[None], v_seq[None]))
    return torch.cat(outs)


def _decode(q, k, v):
    return q.clone()


class CachedAttention(torch.nn.Module):
    def forward(self, q, batch_info, cache_loc, input_pos, k_cache, v_cache):
        return torch_fallback_mha_with_cache(q, batch_info, cache_loc, input_pos, k_cache, v_cache)
