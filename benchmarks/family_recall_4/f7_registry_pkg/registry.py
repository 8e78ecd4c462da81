from typing import Any, Dict

_ENTRIES: Dict[str, Any] = {}


def register(name: str, value: Any) -> None:
    _ENTRIES[name] = value


def get_entry(name: str) -> Any:
    return _ENTRIES[name]
