"""vLLM EAGLE proposer package: target KV read modes live in kv_modes as enum members holding functions."""
from .kv_modes import KVMode
from .proposer import EagleProposer

__all__ = ["EagleProposer", "KVMode"]
