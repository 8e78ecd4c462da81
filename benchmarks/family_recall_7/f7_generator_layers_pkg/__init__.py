"""f7: generators in walk.py yield layer caches (or the step's slots); the connector in connector.py converts."""
from .connector import WalkingConnector
