"""HTML pages: home, join by code, the game page and its review, your history and practice, rules, the strategy
explorer; plotly.js and the health check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from pigdice import __version__
from pigdice.errors import PigdiceError
from pigdice.players.defaults import LEVEL_TITLES
from pigdice.rules.registry import all_variants, find_variant, variant_settings
from pigdice.rules.variant import Endgame, FinalTurn, TieRule
from pigdice.study.rating import bands_table
from pigdice.study.review import MARKS
from pigdice.web import content
from pigdice.web.config import DEFAULT_VARIANT
from pigdice.web.errors import WebError
from pigdice.web.manager import RoomManager
from pigdice.web.routes import AppSettings, Manager
from pigdice.web.seats import CODE_RE
from pigdice.web.variants import variant_info, web_specs

router = APIRouter()


def plotly_js_path() -> Path:
    """Return the path of plotly.min.js inside the installed plotly package."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render the page template ``name`` with ``context``."""
    response: HTMLResponse = request.app.state.templates.TemplateResponse(request, name, context, status_code=status)
    return response


def not_found(request: Request, message: str) -> HTMLResponse:
    """Render the 404 page with ``message``."""
    return page(request, "error.html", 404, title="Not found", message=message)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    """Home: start a game or join a room by code."""
    return page(
        request,
        "home.html",
        title="Play Pig",
        variants=[variant_info(v) for v in all_variants()],
        specs=web_specs(),
        endgames=[(e.value, e.label) for e in Endgame],
        ties=[(t.value, t.label) for t in TieRule],
        final_turns=[(f.value, f.label) for f in FinalTurn],
        settings={v.name: [setting.to_json(value) for setting, value in variant_settings(v)] for v in all_variants()},
        selected=DEFAULT_VARIANT,
        levels=[(f"level:{number}", title) for number, title in enumerate(LEVEL_TITLES, start=1)],
    )


@router.get("/join")
async def join_by_code(request: Request, code: str = "") -> Response:
    """Go to the room a code (or a pasted room link) names."""
    text = code.strip().rstrip("/").rsplit("/", 1)[-1]
    if not CODE_RE.match(text):
        return page(
            request,
            "error.html",
            404,
            title="No such room",
            message="That is not a room code. Codes look like Xq3v_9aLk2Bz.",
        )
    return RedirectResponse(f"/play/{text}", status_code=303)


async def room_page(
    request: Request, code: str, manager: RoomManager, name: str, what: str, **context: Any
) -> HTMLResponse:
    """Render the page ``name`` of a room (titled ``what`` and the room), or the 404 page if no room has ``code``."""
    try:
        room = await manager.get(code)
    except WebError:
        return not_found(request, "No room has that code. Check the link, or start a new game.")
    title = f"{what}{room.variant.title} · room {room.code}"
    return page(request, name, title=title, room=room, variant=variant_info(room.variant), **context)


@router.get("/play/{code}", response_class=HTMLResponse)
async def play_page(request: Request, code: str, manager: Manager) -> HTMLResponse:
    """The game page of a room."""
    return await room_page(request, code, manager, "game.html", "")


@router.get("/review/{code}", response_class=HTMLResponse)
async def review_page(request: Request, code: str, manager: Manager) -> HTMLResponse:
    """A room's game review (its data comes from /api/games/{code}/review and /verify)."""
    marks = [(mark, round(100 * least)) for mark, least in reversed(MARKS)]
    return await room_page(request, code, manager, "review.html", "Review · ", marks=marks)


@router.get("/history", response_class=HTMLResponse)
async def history_page(request: Request) -> HTMLResponse:
    """Your games in this browser: results, luck against your play, and your rating over time."""
    return page(request, "history.html", title="Your history", bands=bands_table())


@router.get("/practice", response_class=HTMLResponse)
async def practice_page(request: Request) -> HTMLResponse:
    """Practise the positions of your own games where you gave away the most."""
    return page(request, "practice.html", title="Practice")


@router.get("/rules", response_class=HTMLResponse)
async def rules_index(request: Request) -> HTMLResponse:
    """Every variant with its one-line summary."""
    variants = all_variants()
    return page(
        request,
        "rules_index.html",
        title="Rules",
        variants=[variant_info(v) for v in variants],
        endings={v.name: v.endgame.label for v in variants},
    )


@router.get("/rules/{name}", response_class=HTMLResponse)
async def rules_page(request: Request, name: str) -> HTMLResponse:
    """The rules of one variant, in our own words, with sources and history."""
    try:
        variant = find_variant(name)
    except PigdiceError:
        return not_found(request, f"There is no variant called {name!r}.")
    return page(
        request,
        "rules.html",
        title=f"Rules of {variant.title}",
        variant=variant_info(variant),
        decision=variant.decision.label,
        settings=[(setting.label, setting.words(value)) for setting, value in variant_settings(variant)],
        sources=content.source_texts(variant),
        history=content.history_text(variant),
    )


@router.get("/explore", response_class=HTMLResponse)
async def explore_page(
    request: Request, settings: AppSettings, variant: str = DEFAULT_VARIANT, goal: int | None = None
) -> HTMLResponse:
    """The 3D strategy explorer."""
    choices = [variant_info(v) for v in all_variants()]
    return page(
        request,
        "explore.html",
        title="Strategy explorer",
        variants=choices,
        selected=variant,
        goal=goal,
        max_goal=settings.max_explore_goal,
    )


@router.get("/healthz")
async def healthz(request: Request, manager: Manager) -> dict[str, Any]:
    """Liveness check."""
    return {
        "ok": True,
        "version": __version__,
        "rooms": len(manager.rooms),
        "solving": manager.pool.busy,
        "resumed": manager.resumed,
        "quarantined": manager.quarantined,
        "websockets": request.app.state.sockets.usage(),
    }


@router.get("/static/vendor/plotly.min.js")
async def plotly_js() -> FileResponse:
    """Serve plotly.js from the installed plotly package (cached by browsers for a day)."""
    return FileResponse(
        plotly_js_path(),
        media_type="application/javascript",
        headers={"Cache-Control": "public, max-age=86400"},
    )
