"""Layerwise v1 KV connector; the encoders are passed as callables to a submit helper."""

from .connector import LayerwiseWireConnector

__all__ = ["LayerwiseWireConnector"]
