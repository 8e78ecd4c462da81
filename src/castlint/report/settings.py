"""--show-settings: the settings in force (castlint.session.shown_settings), as `key = value`
lines (the model's fields as `model.key`) or JSON."""

from __future__ import annotations

import json


def render(settings: dict, as_json: bool = False) -> str:
    if as_json:
        return json.dumps(settings, indent=2) + "\n"
    lines = []
    for key, value in settings.items():
        if isinstance(value, dict) and key == "model":
            lines += [f"model.{k} = {json.dumps(v)}" for k, v in value.items()]
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"
