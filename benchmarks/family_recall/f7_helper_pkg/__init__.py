from .kv_utils import upcast_layer, whole_latent

__all__ = ["upcast_layer", "whole_latent"]
