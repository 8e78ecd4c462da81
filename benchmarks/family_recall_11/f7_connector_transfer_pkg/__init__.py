from .connector import TransferConnector
