"""MLA generation: attention.py fetches the latent buffer, latent_ops.py converts it."""
