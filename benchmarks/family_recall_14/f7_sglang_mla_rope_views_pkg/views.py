"""Views of a pool layer. latent_and_rope is only ever given whole layers (backend.forward_decode)."""
import torch


def latent_and_rope(buf: torch.Tensor, kv_lora_rank: int, dtype: torch.dtype):
    latent = buf[..., :kv_lora_rank].to(dtype)  # positive: f7 CL001 last-dim slice of a whole layer keeps every slot
    rope = buf[..., kv_lora_rank:].to(dtype)  # positive: f7 CL001 rope part of every slot
    return latent, rope


def rows_of(buf: torch.Tensor, loc: torch.Tensor, dtype: torch.dtype):
    return buf[loc].to(dtype)  # negative: gathered rows (backend.forward_extend passes indices)


def page_table_i32(page_table: torch.Tensor):
    return page_table.to(torch.int32)  # negative: an index table
