import torch


def _dense_layer(self, buf):
    return buf.to(self.compute_dtype)  # positive: f7 CL001 injected into the attention class, whose forward passes whole layers


def _dense_value_plane(self, buf):
    return buf[:, 1].to(self.compute_dtype)  # positive: f7 CL001 value plane of every block, converted


def _block_rows(self, buf, block_ids):
    return buf[block_ids].to(self.compute_dtype)  # negative: blocks selected before the cast


def with_dense_reader(cls):
    """Class decorator: gives an attention class _dense_layer/_block_rows methods."""
    cls._dense_layer = _dense_layer
    cls._block_rows = _block_rows
    cls._dense_value_plane = _dense_value_plane
    return cls
