"""Downloads of a game's protocol: the Excel workbook and the JSON log.

Both hold roles, shots, checks and winks, so before the end of the game they
are the host's (and the tournament organizers') only — everyone else gets 403;
once the game is finished or annulled they are public, like the board.
"""

from __future__ import annotations

import json
import tempfile

from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import translation

from games import exports
from games.models import Game
from games.permissions import user_can_edit_game
from games.reading import game_export_log

# Workbooks larger than this spill from memory to a temporary file.
_SPOOL_BYTES = 2 * 1024 * 1024


def _game_for_download(request: HttpRequest, pk: int) -> Game:
    game = get_object_or_404(Game.objects.select_related("host"), pk=pk)
    if not (game.is_over or user_can_edit_game(request.user, game)):
        raise PermissionDenied("The protocol is secret until the game ends.")
    return game


def _lang(request: HttpRequest) -> str:
    asked = request.GET.get("lang")
    return exports.normalize_lang(asked or translation.get_language())


def protocol_xlsx(request: HttpRequest, pk: int) -> FileResponse:
    game = _game_for_download(request, pk)
    workbook = exports.build_games_workbook([game.pk], _lang(request), details=True)
    # openpyxl writes a zip, which needs a seekable file; the response then
    # streams that file in chunks instead of holding the bytes in a string.
    out = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115 — FileResponse closes it
    exports.save_workbook(workbook, out)
    out.seek(0)
    response = FileResponse(
        out, as_attachment=True, filename=f"protocol-{game.pk}.xlsx", content_type=exports.XLSX_CONTENT_TYPE
    )
    # An undo may still change a finished game: never serve a stale copy.
    response["Cache-Control"] = "private, no-cache"
    return response


def log_json(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game_for_download(request, pk)
    body = json.dumps(game_export_log(game=game), ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    disposition = "attachment" if request.GET.get("download") else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="game-{game.pk}.json"'
    # An undo may still change a finished game: never serve a stale copy.
    response["Cache-Control"] = "private, no-cache"
    return response
