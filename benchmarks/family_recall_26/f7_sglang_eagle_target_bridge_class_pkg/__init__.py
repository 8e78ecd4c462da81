"""EAGLE draft worker that reads target layers through a bridge class in a sibling module."""

from .eagle_worker import EAGLEDraftWorker

__all__ = ["EAGLEDraftWorker"]
