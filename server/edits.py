"""Preview and Apply of a class's result (``patch.py`` builds the text edits; this module asks the client to show
or apply them; the code actions offering them are in ``presenters.py``)."""
from __future__ import annotations

import asyncio
import hashlib
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from . import analysis, patch, presenters
from .analysis import ModuleClass
from .cache import private_directory
from .documents import Document, uri_to_path
from .job_service import UserError, result_key
from .presenters import APPLY_UNTIMED, KEEP_ORIGINAL, lsp_position
from .states import ModuleStatus, ResultState

if TYPE_CHECKING:
    from .server import AdaExploreServer


def patched(ls: "AdaExploreServer", doc: Document, class_name: str) -> tuple[ModuleClass, ModuleStatus,
                                                                             list[patch.TextEdit]]:
    """The class, its status and the edits that apply its result; a UserError says why there are none."""
    module = ls.module_named(doc, class_name)
    if module is None:
        raise UserError(f"no nn.Module class {class_name!r} in the document any more")
    status = ls.status(doc, module)
    result = status.result or {}
    if status.state == ResultState.STALE:
        raise UserError(f"the result for {class_name} is stale ({status.stale_reason} since the search) and is not "
                        "applied. Run Optimize again")
    if status.state == ResultState.APPLIED:
        raise UserError(f"the AdaExplore result is already applied to {class_name}")
    if status.state == ResultState.NO_VALID:
        raise UserError(f"the search of {class_name} found {presenters.no_valid_text(result)}: nothing to apply")
    if not status.state.can_apply or not result.get("best_source"):
        raise UserError(f"no AdaExplore result for {class_name}: run Optimize first")
    try:
        return module, status, patch.build_edits(doc.text, module, result["best_source"], ls.encoding())
    except patch.PatchError as e:
        raise UserError(f"cannot apply the result: {e}") from e


async def preview(ls: "AdaExploreServer", doc: Document, class_name: str) -> dict[str, Any]:
    _, _, edits = patched(ls, doc, class_name)
    new_text = patch.apply_edits(doc.text, edits, ls.encoding())
    path = uri_to_path(doc.key)
    digest = hashlib.sha256(doc.key.encode()).hexdigest()[:8]
    try:
        folder = private_directory(ls.settings.cache_path() / "previews")
        shown = folder / f"{(path.stem if path else 'module')}.{class_name}.{digest}.adaexplore-preview.py"
        shown.write_text(new_text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write the preview in {ls.settings.cache_path() / 'previews'} ({e.strerror or e}): "
                        "set adaexplore.cacheDir to a writable folder") from e
    if ls.client_supports("window.show_document.support"):
        try:
            await asyncio.wait_for(ls.window_show_document_async(types.ShowDocumentParams(
                uri=shown.as_uri(), take_focus=True)), timeout=10)
        except Exception:  # noqa: BLE001 - the text is returned anyway (clients may diff it themselves)
            pass
    return {"uri": shown.as_uri(), "text": new_text}


async def confirm_untimed(ls: "AdaExploreServer", class_name: str) -> bool:
    """Ask before applying a result that was never timed: True to apply, False when the user declined (or
    dismissed the question); a UserError when the editor could not ask, so nothing is applied unasked."""
    try:
        answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
            type=types.MessageType.Warning, message=presenters.untimed_apply_question(class_name),
            actions=[types.MessageActionItem(title=APPLY_UNTIMED), types.MessageActionItem(title=KEEP_ORIGINAL)]))
    except Exception as e:  # noqa: BLE001 - the client could not ask the user
        raise UserError(f"the result for {class_name} was never timed and the editor could not ask whether to "
                        f"apply it ({e}); nothing changed") from e
    return answer is not None and answer.title == APPLY_UNTIMED


async def apply(ls: "AdaExploreServer", doc: Document, class_name: str, confirmed: str = "") -> dict[str, Any]:
    """Apply the result for ``class_name``. An untimed result is applied only after the user said yes: to the
    question the server asks, or to the same question the client asked (``confirmed`` is its exact text)."""
    module, status, edits = patched(ls, doc, class_name)
    if status.state == ResultState.UNTIMED and confirmed != presenters.untimed_apply_question(class_name):
        if not await confirm_untimed(ls, class_name):
            return {"applied": False, "reason": f"not applied: the result for {class_name} was never timed and the "
                                                "confirmation was declined; nothing changed"}
        doc = ls.open_document(doc.uri)            # the text may have changed while the user read the question
        module, status, edits = patched(ls, doc, class_name)
    lsp_edits = [types.TextEdit(range=types.Range(lsp_position(e.start), lsp_position(e.end)), new_text=e.text)
                 for e in edits]
    if ls.client_supports("workspace.workspace_edit.document_changes") and doc.version is not None:
        edit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
            edits=lsp_edits)])
    else:
        edit = types.WorkspaceEdit(changes={doc.uri: lsp_edits})
    response = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
        edit=edit, label=f"AdaExplore: apply the Triton version of {class_name}"))
    if not response.applied:
        raise UserError(f"the editor did not apply the edit ({response.failure_reason or 'no reason given'})")
    new_text = patch.apply_edits(doc.text, edits, ls.encoding())
    applied = next((m for m in analysis.find_modules(new_text, ls.encoding()) if m.name == class_name), None)
    if applied is not None:
        ls.cache.put(result_key(doc.text, module, ls.settings), doc.key, class_name,
                     {**(status.result or {}), "applied_digest": applied.digest()})
    return {"applied": True, "reference_class": patch.reference_name(class_name, analysis.top_level_names(doc.text))}
