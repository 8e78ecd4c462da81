"""The pygls server: LSP messages -> castlint.server.documents."""

from __future__ import annotations

from typing import List

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from castlint import __version__
from castlint.server import documents

SOURCE = "castlint"
FIX_ALL = types.CodeActionKind.SourceFixAll.value + ".castlint"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}


def _diagnostics(text: str, checked) -> List[types.Diagnostic]:
    lines = text.splitlines()
    out = []
    for f in checked.findings:
        start_line = documents.line_text(lines, f.start.line)
        end_line = documents.line_text(lines, f.end.line)
        out.append(
            types.Diagnostic(
                range=types.Range(
                    start=types.Position(
                        line=f.start.line - 1, character=documents.utf16_column(start_line, f.start.column)
                    ),
                    end=types.Position(line=f.end.line - 1, character=documents.utf16_column(end_line, f.end.column)),
                ),
                message=f.message,
                severity=SEVERITY.get(f.severity.value, types.DiagnosticSeverity.Warning),
                code=f.code,
                source=SOURCE,
                data={
                    "fixable": f.fixable and f.fix.safety.value == "safe",
                    "start": f.start.line,
                    "end": f.end.line,
                    "fix": f.fix.description if f.fixable else None,
                },
            )
        )
    for e in checked.errors:
        line = max(e.line - 1, 0)
        out.append(
            types.Diagnostic(
                range=types.Range(
                    start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
                ),
                message=e.message,
                severity=types.DiagnosticSeverity.Error,
                code=f"castlint/{e.kind}",
                source=SOURCE,
            )
        )
    return out


def make_server() -> LanguageServer:
    server = LanguageServer("castlint", __version__)

    def publish(ls: LanguageServer, uri: str) -> None:
        doc = ls.workspace.get_text_document(uri)
        checked = documents.check_text(documents.path_of(uri), doc.source)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=_diagnostics(doc.source, checked))
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams):
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams):
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams):
        publish(ls, params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: LanguageServer, params: types.DidChangeWatchedFilesParams):
        """A config changed on disk (the client watches files): check every open document again."""
        if any(change.uri.endswith(("castlint.toml", "pyproject.toml")) for change in params.changes):
            for uri in list(ls.workspace.text_documents):
                publish(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams):
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
    )
    def code_action(ls: LanguageServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        doc = ls.workspace.get_text_document(uri)
        text = doc.source
        path = documents.path_of(uri)
        ours = [d for d in params.context.diagnostics if d.source == SOURCE and isinstance(d.data, dict)]
        actions: List[types.CodeAction] = []
        fixed = None
        if any(d.data.get("fixable") for d in ours) or (params.context.only and FIX_ALL in params.context.only):
            fixed = documents.fixed_text(path, text)
        whole = None
        if fixed is not None:
            last, width = documents.whole_range(text)
            whole = types.WorkspaceEdit(
                changes={
                    uri: [
                        types.TextEdit(
                            range=types.Range(
                                start=types.Position(line=0, character=0),
                                end=types.Position(line=last, character=width),
                            ),
                            new_text=fixed,
                        )
                    ]
                }
            )
        wanted_kinds = params.context.only
        quick = not wanted_kinds or types.CodeActionKind.QuickFix in wanted_kinds
        for d in ours:
            if whole is not None and d.data.get("fixable") and quick:
                actions.append(
                    types.CodeAction(
                        title=f"castlint: fix {d.code} ({d.data.get('fix')})",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[d],
                        edit=whole,
                        is_preferred=True,
                    )
                )
            if not quick:
                continue
            suppressed = documents.suppressed_line(text, d.data["start"], d.data["end"], str(d.code))
            if suppressed is not None:
                number, new_line = suppressed
                old_line = text.splitlines(keepends=True)[number]
                end = (
                    types.Position(line=number + 1, character=0)
                    if old_line.endswith(("\n", "\r"))
                    else types.Position(line=number, character=len(old_line.encode("utf-16-le")) // 2)
                )
                actions.append(
                    types.CodeAction(
                        title=f"castlint: suppress {d.code} on this line (# noqa: {d.code})",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[d],
                        edit=types.WorkspaceEdit(
                            changes={
                                uri: [
                                    types.TextEdit(
                                        range=types.Range(start=types.Position(line=number, character=0), end=end),
                                        new_text=new_line,
                                    )
                                ]
                            }
                        ),
                    )
                )
        if whole is not None and (
            not wanted_kinds or FIX_ALL in wanted_kinds or types.CodeActionKind.SourceFixAll in wanted_kinds
        ):
            actions.append(types.CodeAction(title="castlint: fix all safe findings", kind=FIX_ALL, edit=whole))
        return actions

    return server
