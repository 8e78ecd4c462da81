from .draft import SpecModelAgent

__all__ = ["SpecModelAgent"]
