"""`--add-noqa` keeps a file's encoding, BOM and line endings (castlint.noqa.add_to_source)."""

from __future__ import annotations

from castlint.noqa import add_to_source


def test_declared_encoding_is_kept():
    src = "# -*- coding: latin-1 -*-\nname = 'größe'.encode()\n".encode("latin-1")
    new, edited, unplaced = add_to_source(src, [(2, 2, "CL001")])
    assert edited == 1 and unplaced == []
    assert new == "# -*- coding: latin-1 -*-\nname = 'größe'.encode()  # noqa: CL001\n".encode("latin-1")


def test_bom_and_crlf_are_kept():
    src = b"\xef\xbb\xbfx = 1\r\ny = 2\r\n"
    new, edited, _ = add_to_source(src, [(2, 2, "CL003")])
    assert edited == 1 and new == b"\xef\xbb\xbfx = 1\r\ny = 2  # noqa: CL003\r\n"


def test_utf8_without_bom_gets_none():
    src = "z = 'ü'\n".encode("utf-8")
    new, _, _ = add_to_source(src, [(1, 1, "CL001")])
    assert new == "z = 'ü'  # noqa: CL001\n".encode("utf-8")
