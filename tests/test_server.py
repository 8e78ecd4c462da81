"""`castlint server` end to end, with a real LSP client (pytest-lsp) driving the real
server process over stdio: diagnostics from the unsaved buffer on open and change, the
fix and suppress code actions applied to the text, settings from the nearest config."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CAST = (
    "def forward_decode(self, q, layer, idx):\n"
    "    g = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)[idx]\n"
    "    return g\n"
)
FIXED_LINE = "    g = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[idx].to(q.dtype)\n"
CLEAN = "def forward_decode(self, q):\n    return q\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "castlint", "server"]))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    lsp_client.root = root
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def apply_edits(text: str, edits) -> str:
    """Apply LSP TextEdits (ASCII text: UTF-16 offsets are characters) the way an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(pos):
        return sum(len(line) for line in lines[: pos.line]) + pos.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
        lines = text.splitlines(keepends=True)
    return text


async def open_doc(client: LanguageClient, path: Path, text: str):
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def actions_for(client: LanguageClient, uri: str, diagnostics):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )


@pytest.mark.asyncio
async def test_diagnostic_then_fix_action_gives_the_fixed_text(client: LanguageClient):
    path = client.root / "backend.py"  # never written: the server checks the buffer it is sent
    uri = await open_doc(client, path, CAST)
    diagnostics = client.diagnostics[uri]
    assert [d.code for d in diagnostics] == ["CL003"]
    d = diagnostics[0]
    assert d.source == "castlint" and d.range.start.line == 1 and d.range.start.character == 8
    assert d.severity == types.DiagnosticSeverity.Error
    actions = await actions_for(client, uri, diagnostics)
    fix = next(a for a in actions if a.title.startswith("castlint: fix CL003"))
    fixed = apply_edits(CAST, fix.edit.changes[uri])
    assert fixed.splitlines(keepends=True)[1] == FIXED_LINE
    # the editor applies it: the server sees the new buffer and the finding is gone
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_change_from_unsaved_buffer_and_suppress_this_line(client: LanguageClient):
    path = client.root / "other.py"
    uri = await open_doc(client, path, CLEAN)
    assert list(client.diagnostics[uri]) == []
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=CAST)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diagnostics = client.diagnostics[uri]
    assert [d.code for d in diagnostics] == ["CL003"]
    actions = await actions_for(client, uri, diagnostics)
    suppress = next(a for a in actions if a.title.startswith("castlint: suppress CL003"))
    text = apply_edits(CAST, suppress.edit.changes[uri])
    assert text.splitlines()[1].endswith("[idx]  # noqa: CL003")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_settings_come_from_the_nearest_config(client: LanguageClient):
    sub = client.root / "pkg"
    sub.mkdir()
    (sub / "castlint.toml").write_text('ignore = ["CL003"]\n')
    uri = await open_doc(client, sub / "quiet.py", CAST)
    assert list(client.diagnostics[uri]) == []  # pkg/castlint.toml ignores CL003
    uri = await open_doc(client, client.root / "loud.py", CAST)
    assert [d.code for d in client.diagnostics[uri]] == ["CL003"]


@pytest.mark.asyncio
async def test_a_changed_config_rechecks_open_documents(client: LanguageClient):
    uri = await open_doc(client, client.root / "a.py", CAST)
    assert [d.code for d in client.diagnostics[uri]] == ["CL003"]
    config = client.root / "castlint.toml"
    config.write_text('ignore = ["CL003"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []
