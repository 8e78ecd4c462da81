"""lmdeploy-style model agent that records per-step KV snapshots built by dataclasses in snapshot.py."""
