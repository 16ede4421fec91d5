"""Memory before allocating: what goal-sized work needs, what the machine has, and a clear refusal.

Every place that allocates arrays whose size grows with the goal (the solver's values, action
tables, exact head-to-head, the exact analyses, the fast simulator's table stack) first calls
``check_memory`` with one of the estimates below. Work that would need more than
``BUDGET_FRACTION`` of the memory available right now (or the share the setting
PIGDICE_MEMORY_SHARE gives, 0.1 to 0.9) is refused with a ``ResourceLimitError``
that says how much it needs, how much there is, and the largest goal that fits, instead of dying
in numpy's allocator (or in the kernel's out-of-memory killer) half-way through.

The estimates count the arrays the code allocates, in bytes, with the goal g (float64 is 8
bytes, action tables are int8); each names the code it follows. This module reads only the
operating system's numbers and imports nothing heavy, so any layer above the rules may use it.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable
from pathlib import Path

from pigdice.errors import BadParameterError, ResourceLimitError
from pigdice.rules.variant import MAX_GOAL

MiB = 1 << 20
GiB = 1 << 30
BUDGET_FRACTION = 0.5  # use at most half of the memory available when the work starts
SHARE_ENV = "PIGDICE_MEMORY_SHARE"  # the setting that gives another share (e.g. 0.7 on a machine doing nothing else)
SHARE_BOUNDS = (0.1, 0.9)
FALLBACK_AVAILABLE = 4 * GiB  # assumed when the operating system says nothing we can read
_NO_LIMIT = 1 << 60  # cgroup "limits" this large mean unlimited
# A reading of the memory available serves the checks of small work for a moment: work needing at most
# SMALL_SHARE of the budget it gave, within RECENT_SECONDS. Read afresh (/proc/meminfo and the cgroup's
# files), it cost a Pig solve at goal 100 0.01-0.19 ms of its 1.8 (a busy machine's caches run cold).
RECENT_SECONDS = 1.0
SMALL_SHARE = 1 / 64

Need = Callable[[int], int]  # bytes needed at a goal


# -- what the machine has ------------------------------------------------------------------------
def _read_head(path: str | Path, size: int = 8192) -> bytes | None:
    """Return the first ``size`` bytes of a small system file in one read, or None if it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _meminfo_available(path: Path = Path("/proc/meminfo")) -> int | None:
    """Return Linux's MemAvailable in bytes (memory usable without swapping), or None."""
    text = _read_head(path)
    if text is None:
        return None
    at = text.find(b"MemAvailable:")
    if at < 0:
        return None
    try:
        return int(text[at + len(b"MemAvailable:") :].split(None, 1)[0]) * 1024
    except (ValueError, IndexError):
        return None


_CGROUP_FILES = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),  # v1
)


@functools.cache
def _cgroup_files() -> tuple[str, str] | None:
    """Return the (limit, usage) files of this process's memory cgroup, or None: found once, as they do not move."""
    for limit_file, usage_file in _CGROUP_FILES:
        if os.access(limit_file, os.R_OK) and os.access(usage_file, os.R_OK):
            return limit_file, usage_file
    return None


def _cgroup_available() -> int | None:
    """Return what the container's memory limit leaves (cgroup v2 or v1), or None without a limit."""
    files = _cgroup_files()
    if files is None:
        return None
    limit_text, usage_text = _read_head(files[0], 64), _read_head(files[1], 64)
    if limit_text is None or usage_text is None or limit_text.strip() == b"max":
        return None
    try:
        limit, usage = int(limit_text), int(usage_text)
    except ValueError:
        return None
    return None if limit >= _NO_LIMIT else max(0, limit - usage)


def _sysconf_available() -> int | None:
    """Return available (or, failing that, half of all) physical memory from os.sysconf, or None."""
    try:
        page = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    for name, share in (("SC_AVPHYS_PAGES", 1.0), ("SC_PHYS_PAGES", 0.5)):
        try:
            pages = os.sysconf(name)
        except (ValueError, OSError):
            continue
        if pages > 0:
            return int(pages * page * share)
    return None


def available_bytes() -> int:
    """Return the memory available to this process now: /proc/meminfo, a container limit, or os.sysconf."""
    found = [n for n in (_meminfo_available(), _cgroup_available()) if n is not None]
    if not found:
        fallback = _sysconf_available()
        found = [fallback if fallback is not None else FALLBACK_AVAILABLE]
    return min(found)


def budget_fraction() -> float:
    """Return the share of the available memory one piece of work may take: the setting PIGDICE_MEMORY_SHARE if
    given, else ``BUDGET_FRACTION`` (raises BadParameterError for a setting outside SHARE_BOUNDS or not a number)."""
    setting = os.environ.get(SHARE_ENV, "").strip()
    if not setting:
        return BUDGET_FRACTION
    try:
        share = float(setting)
    except ValueError:
        share = math.nan
    low, high = SHARE_BOUNDS
    if not low <= share <= high:
        raise BadParameterError(
            f"{SHARE_ENV} takes the share of the available memory one solve may use ({low} to {high}), not {setting!r}"
        )
    return share


def budget_bytes(available: int | None = None) -> int:
    """Return the most memory one piece of work may take: ``budget_fraction`` of what is available."""
    return int((available_bytes() if available is None else available) * budget_fraction())


# -- what goal-sized work needs ------------------------------------------------------------------
def values_bytes(goal: int) -> int:
    """Return the bytes of one (goal, goal) float64 array: a policy's V, or a chain's M."""
    return 8 * goal * goal


def solver_bytes(goal: int) -> int:
    """Return the solver's peak: V plus the level kernel's rows C and D (rollhold.solve_levels), 3 x 8 g^2."""
    return 3 * values_bytes(goal)


def action_table_bytes(goal: int, tables: int = 1) -> int:
    """Return the bytes of ``tables`` (goal, goal, goal) int8 action tables (Policy.action_table, players)."""
    return tables * goal**3


def head_to_head_bytes(goal: int) -> int:
    """Return the exact evaluator's arrays besides the tables: VA, VB and the warm starts (4 rows), 6 x 8 g^2."""
    return 6 * values_bytes(goal)


# Entries of a turn's outcome list per turn-start state assumed before counting them: measured
# 4-22 at goal 100 (Pig and Pig Dice optimal 4, Big Pig hold:20 18, Hog optimal 21).
ENTRIES_PER_STATE = 32
ENTRY_BYTES = 2 * (8 + 8)  # a new score (int64) and its probability (float64), twice while joined


def turn_outcomes_bytes(goal: int, visits: bool = False, entries_per_state: float = ENTRIES_PER_STATE) -> int:
    """Return analysis.turn_outcomes' arrays: 8 per-state arrays, the outcome lists, 8 g^3 for in-turn visits."""
    lists = int(ENTRY_BYTES * entries_per_state * goal * goal)
    return 8 * values_bytes(goal) + lists + (8 * goal**3 if visits else 0)


def chain_bytes(goal: int) -> int:
    """Return analysis.play_chain's arrays: M, X, Y and their next turn, W (2), both stats stacks (6 each)."""
    return (3 + 3 + 2 + 12) * values_bytes(goal)


# -- the check -----------------------------------------------------------------------------------
def format_bytes(count: float) -> str:
    """Return a byte count for people: '512 MiB', '74.5 GiB'."""
    if count >= GiB:
        return f"{count / GiB:.1f} GiB"
    if count >= MiB:
        return f"{count / MiB:.0f} MiB"
    return f"{max(count, 0) / 1024:.0f} KiB"


def largest_goal(need: Need, budget: int, high: int = MAX_GOAL) -> int:
    """Return the largest goal g <= ``high`` with need(g) <= budget (0 if not even goal 1 fits)."""
    low, top = 0, high
    while low < top:
        middle = (low + top + 1) // 2
        if need(middle) <= budget:
            low = middle
        else:
            top = middle - 1
    return low


def refuse(what: str, goal: int, need: Need, needed: int, available: int) -> ResourceLimitError:
    """Return the error refusing ``what`` at ``goal``: what it needs, what there is, the largest goal that fits."""
    budget = budget_bytes(available)
    fits = largest_goal(need, budget)
    where = f"the largest goal that fits is {fits}" if fits else "no goal fits"
    return ResourceLimitError(
        f"{what} at goal {goal} needs about {format_bytes(needed)} of memory; {format_bytes(available)} is "
        f"available and pigdice uses at most {budget_fraction():.0%} of it ({format_bytes(budget)}): {where}",
        needed,
        available,
        budget,
        fits,
    )


def check_memory(what: str, goal: int, need: Need) -> int:
    """Raise ResourceLimitError if ``need(goal)`` bytes exceed the budget; else return the bytes the budget leaves.

    Call it before allocating. Work whose memory grows as it goes checks its growth against the
    bytes returned (``turn_outcomes`` does, for its outcome lists).
    """
    needed = need(goal)
    available = _recent_available(needed)
    budget = budget_bytes(available)
    if needed > budget:
        raise refuse(what, goal, need, needed, available)
    return budget - needed


_recent: tuple[Callable[[], int] | None, float, int] = (None, 0.0, 0)  # (the reader, when, what it read)


def _recent_available(needed: int) -> int:
    """Return the memory available: the last reading if recent and ``needed`` a small share of its budget, else anew.

    A reading is kept with the reader that made it, so a reader swapped in (a test's small machine) reads afresh.
    """
    global _recent
    reader, when, available = _recent
    now = time.monotonic()
    if reader is available_bytes and now - when < RECENT_SECONDS and needed <= SMALL_SHARE * budget_bytes(available):
        return available
    available = available_bytes()
    _recent = (available_bytes, now, available)
    return available


# The reset values the n-player solver's passes move by Anderson acceleration (solver.fixed_point):
# the pass's own copy, the concatenated input, 5 inputs, 5 outputs, 5 residuals, 4 + 4 differences,
# the least-squares work (about 4 more) and the mixed guess with its clipped copy: about 32 copies.
ANDERSON_COPIES = 32


# n-player win vectors that would take more than this are kept compact: n - 1 entries a state, the
# mover's own being 1 minus the others' (``pigdice.solve.n.nkernels.share``): 4 players to 100 in 2.4 GB, not 3.2
COMPACT_BYTES = 1 << 30


def players_shares(goal: int, players: int) -> int:
    """Return the entries an n-player solve keeps per state: every player's, or players - 1 where the full
    win vectors would take more than COMPACT_BYTES."""
    return players - 1 if 8 * players * goal**players > COMPACT_BYTES else players


def players_values_bytes(goal: int, players: int, shares: int | None = None) -> int:
    """Return the bytes of an n-player policy's win vectors W, (goal,) * players + (shares,) float64
    (``shares`` None: as ``players_shares`` keeps them)."""
    return 8 * (players_shares(goal, players) if shares is None else shares) * goal**players


def players_solver_bytes(goal: int, players: int, resets: bool = False, shares: int | None = None) -> int:
    """Return the n-player solver's peak (nplayer.solve_players): W (``shares`` entries a state, None: as
    ``players_shares``), the warm turn rows (goal, goal, n) and (goal, goal), and with resets
    ``ANDERSON_COPIES`` copies of the reset values W[..., 0, :] and two anchor numbers per turn start
    (float64: where its pure choices stood last pass, and how often they flipped)."""
    rows = 8 * goal * goal * (players + 1)
    values = players_values_bytes(goal, players, shares)
    anderson = ANDERSON_COPIES * values // goal if resets else 0
    anchors = 2 * 8 * goal**players if resets else 0
    return values + rows + anderson + anchors


def banked_cells(goal: int, players: int, equal_turns: bool) -> int:
    """Return the cells of the n-player banked table (``pigdice.solve.n.finalturns.banked_layout``): the others'
    score tuples, goal^(n - 1); under equal turns a class per seat of the player who banks past the goal, indexed
    by the scores of the seats after it alone: goal^(n - 1) + ... + goal + 1."""
    if not equal_turns:
        return goal ** (players - 1)
    return sum(goal**after for after in range(players))


def banked_table_bytes(goal: int, players: int, equal_turns: bool, width: int) -> int:
    """Return the bytes of the n-player banked table under an ending (``pigdice.solve.n.finalturns``): the win
    vector of banking each of ``width`` totals past the goal, per cell (``banked_cells``), float64."""
    return width * banked_cells(goal, players, equal_turns) * players * 8


def herd_group_bytes(goal: int) -> int:
    """Return the bytes of 3-player Swine Herd's equilibrium tables (``herd.swineherd_n.Tables``): turn starts and
    stored profiles (9 goal^3), the pair rows (3 goal^2 per pair of scores), the lone roller's rows and the table
    past the goal; its exploitability pass needs about as much again."""
    pairs = goal * (goal + 1) // 2
    return 8 * (9 * goal**3 + 3 * pairs * goal * goal + 3 * pairs * (goal * (goal - 1) // 2) + 2 * (4 * goal + 1) * 2)
