import torch


def latent_to_compute(latent_buffer, compute_dtype, kv_lora_rank):
    ckv = latent_buffer[..., :kv_lora_rank].to(compute_dtype)  # positive: f7 CL001 compressed part of every slot
    kpe = latent_buffer[..., kv_lora_rank:]
    return ckv, kpe


def absorb(q_nope, w_kc, compute_dtype):
    return torch.einsum("bhd,hdc->bhc", q_nope, w_kc.to(compute_dtype))  # negative: absorbed weight


def page_latents(latent_buffer, page_ids, compute_dtype):
    return latent_buffer[page_ids].to(compute_dtype)  # negative: gathered pages
