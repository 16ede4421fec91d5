"""The review page of a room's game: every decision against the perfect player, the chart, the dice check."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from pigdice.study.review import MARKS
from pigdice.web.errors import WebError
from pigdice.web.routes import Manager
from pigdice.web.routes.pages import not_found, page

router = APIRouter()


@router.get("/review/{code}", response_class=HTMLResponse)
async def review_page(request: Request, code: str, manager: Manager) -> HTMLResponse:
    """The review page (its data comes from /api/games/{code}/review and /verify)."""
    try:
        room = await manager.get(code)
    except WebError:
        return not_found(request, "No room has that code. Check the link, or start a new game.")
    thresholds = [(name, round(100 * least)) for name, least in reversed(MARKS)]
    return page(
        request,
        "review.html",
        title=f"Review · {room.variant.title} · room {room.code}",
        room=room,
        marks=thresholds,
    )
