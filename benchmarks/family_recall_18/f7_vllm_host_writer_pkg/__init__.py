"""vLLM-style package: a connector (connector.py) writing layers through a HostWriter (host_io.py)."""
