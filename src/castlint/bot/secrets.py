"""The token, in every form a message can carry it, replaced by `***`.

A token read from a file often ends in a newline. http.client then refuses the
Authorization header and its error shows the value in repr form
(`b'Bearer ghs_...\\n'`), so redacting the exact string is not enough. The forms
covered, for the token and for the token stripped of surrounding whitespace:
as is; Python's repr of the str and of its UTF-8 bytes (escapes such as `\\n`
spelled out); JSON string escaping; percent-encoding (quote and quote_plus, as
in a URL); base64 of the token and of `x-access-token:TOKEN` (HTTP basic auth);
and each line of a token that spans lines, when the line is long enough to be
a secret on its own.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from typing import Iterable, List

MIN_PART = 8  # a shorter piece of a token is not worth hiding (and would redact ordinary words)


def secret_forms(secret: str) -> List[str]:
    """Every spelling of secret that redact() replaces, longest first."""
    forms = set()
    for value in {secret, secret.strip()}:
        if len(value) < 4:
            continue
        raw = value.encode("utf-8", "surrogateescape")
        forms.update(
            {
                value,
                repr(value)[1:-1],
                repr(raw)[2:-1],
                json.dumps(value)[1:-1],
                urllib.parse.quote(value, safe=""),
                urllib.parse.quote_plus(value),
                base64.b64encode(raw).decode("ascii"),
                base64.b64encode(b"x-access-token:" + raw).decode("ascii"),
            }
        )
        forms.update(part.strip() for part in value.splitlines() if len(part.strip()) >= MIN_PART)
    return sorted((f for f in forms if f), key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """text with every form of every secret replaced by ***."""
    for secret in secrets:
        if not secret:
            continue
        for form in secret_forms(secret):
            if form in text:
                text = text.replace(form, "***")
    return text
