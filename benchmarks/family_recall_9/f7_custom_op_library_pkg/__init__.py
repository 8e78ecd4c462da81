"""A torch.library custom op in ops.py that converts; attention.py feeds it manager buffers only."""
