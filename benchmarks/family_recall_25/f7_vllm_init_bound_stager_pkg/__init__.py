from .connector import HostStagingConnector

__all__ = ["HostStagingConnector"]
