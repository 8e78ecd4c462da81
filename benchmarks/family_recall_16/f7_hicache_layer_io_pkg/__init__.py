"""HiCache layer I/O: controller.py holds the device pool, io_ops.py converts layers."""
