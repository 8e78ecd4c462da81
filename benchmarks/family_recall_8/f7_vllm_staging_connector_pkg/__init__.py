from .connector import StagingConnector
