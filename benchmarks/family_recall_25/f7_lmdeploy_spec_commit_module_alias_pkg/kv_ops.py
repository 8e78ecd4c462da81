import torch


def commit_layer(target_k: torch.Tensor, draft_k: torch.Tensor) -> None:
    draft_k.copy_(target_k.to(draft_k.dtype))  # positive: f7 CL001 whole target key cache widened into the draft cache, called per step from draft.py


def commit_blocks(target_k: torch.Tensor, draft_k: torch.Tensor, block_ids: torch.Tensor) -> None:
    draft_k[block_ids] = target_k[block_ids].to(draft_k.dtype)  # negative: blocks gathered first


def warm_copy(target_k: torch.Tensor) -> torch.Tensor:
    return target_k.to(torch.float16)  # negative: only called at build time
