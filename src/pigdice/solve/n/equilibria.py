"""Other equilibria of the n-player solver's cycles, and how far they move the start's win chances.

With 3 or more players a cycle (one score tuple's rotations, linked by busts: ``nkernels``) may have
several consistent profiles of choices, and the solver keeps the one its selection rule reaches
(``SELECTION_RULE``). This module searches for the others and says how much they matter.

Local search (``search_policy``): for every cycle, given the solved values of every position outside
it, each member's plans (its turn's choices as a function of x, its own chance at the turn start its
turn falls back to; ``nkernels.member_plans``) are listed for x within ``SEARCH_WINDOW`` of where the
solve settled, and every profile of those plans is checked: the cycle's values are solved with those
choices and kept if every member's x then lies where its plan is its best reply (under the solver's
tie-break). This finds every pure equilibrium of the cycle whose chances lie within the window. Where
a member has more than ``SEARCH_PLANS`` plans there, the window narrows by halves (``NARROWINGS``
times at most); a cycle still past it is searched over the first plans only and counted as capped.

The bounds that matter are not the local ones: another equilibrium in one cycle changes the values of
every position below it, whose own choices (and equilibria) may change with them. Interval (min/max)
propagation of each position's values is not sound here: the choices below are best replies to the
values above, not monotone in them, and the values of different seats move together. So the start's
bounds (``start_bounds``) solve the whole game once per equilibrium: the solve is run level by level,
high score sums first, and after each level the cycles with more than one equilibrium found are set to
a chosen one of them before the levels below are solved; the choices are enumerated depth first (a
changed choice re-solves everything below it, where other cycles may then have more or fewer
equilibria), so every combination the search can reach is solved exactly once. The number of such
combinations grows as a product over cycles, hence ``MAX_SOLVES``; past it the bounds cover the
equilibria solved and say so.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from pigdice.errors import BadParameterError
from pigdice.files import read_text, write_text
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.n import nkernels
from pigdice.solve.n.mixing import SLACK, cycle_vectors
from pigdice.solve.n.ntuples import cycle_period, first_tuple, next_tuple
from pigdice.solve.n.rows import cycle_rows, players_game
from pigdice.solve.policyfile import cache_dir
from pigdice.solve.solver import Progress

SELECTION_RULE = (
    "Positions are solved from the highest score sum down. In each cycle of turn starts linked by busts "
    "(one score tuple's rotations) the players' choices start from a guess extrapolated from the positions "
    "one and two points higher; every player of the cycle whose choice is no longer a best reply re-chooses, "
    "all at once for 4 rounds, then one at a time in turn order, until every choice is a best reply. At a tie "
    "(options within 1e-12) the mover rolls at turn total 0, holds otherwise, and takes the fewest dice. Where "
    "no such choices are reached, the players mix two neighbouring plans so that each is indifferent (a mixed "
    "equilibrium), and failing that the choices with the smallest regret are kept and the regret is reported."
)
SEARCH_WINDOW = 0.02  # each member's plans are listed for x within this of where the solve settled
SEARCH_PLANS = 16  # plans listed per member at most (past them the window narrows)
NARROWINGS = 3  # halvings of the window at most (0.02 to 0.0025); a cycle still past SEARCH_PLANS is capped
MAX_FOUND = 8  # equilibria kept per cycle (more are counted)
SAME = 1e-12  # two equilibria whose values agree this closely are one
MAX_SEARCH_CYCLES = 400_000  # cycles searched after a solve (3-player goal 100 has 333,400)
MAX_SOLVES = 64  # whole-game solves for the start's bounds (one per combination of equilibria)
RECORD_ROWS = 4096  # cycles with several equilibria recorded (more are counted)
RECORD_COLUMNS = 3  # (seat * goal^n + flat index of the cycle's tuple, equilibria found, spread)
EXAMPLES = 5  # cycles named in a report, the largest spreads first
PROGRESS_STATES = 200_000  # states searched between progress reports


class CycleSearch(NamedTuple):
    """How one cycle is searched (``_search_cycle``), and its scratch."""

    window: float  # each member's plans are listed for x within this of where the solve settled
    max_plans: int  # plans listed per member at most (past them the window narrows)
    found: np.ndarray  # (MAX_FOUND, n, n): the solve's vectors of the members, then the other equilibria's


class SearchTally(NamedTuple):
    """What searching the cycles of some score sums met (``search_levels``), or the sums of a whole search."""

    searched: int  # cycles searched
    multiple: int  # cycles with more than one equilibrium found
    capped: int  # cycles still past max_plans plans in the narrowest window
    spread: float  # the most any value of one cycle differs between its equilibria
    most: int  # the most equilibria found in one cycle
    narrowed: int  # cycles searched in a narrower window


NOTHING_SEARCHED = SearchTally(0, 0, 0, 0.0, 0, 0)


def _merged(before: SearchTally, level: SearchTally) -> SearchTally:
    """Return the search's figures after ``before`` and then ``level``: sums and largest values."""
    return SearchTally(
        before.searched + level.searched,
        before.multiple + level.multiple,
        before.capped + level.capped,
        max(before.spread, level.spread),
        max(before.most, level.most),
        before.narrowed + level.narrowed,
    )


@njit(cache=True)
def _search_cycle(game, W, a, period, s0, work, search):  # pragma: no cover - numba
    """Search the cycle of ``a`` for its pure equilibria; return (how many distinct ones, narrowed, capped).

    search.found[0] receives the solved vectors (the solve's equilibrium), search.found[1:] the others
    found (up to its size; more are counted). The window narrows where a member has more than
    search.max_plans plans in it (narrowed; capped: still more at the narrowest, so the search there
    covered only the first plans). Member m sits at work.idxs[m].
    """
    n, goal = game.players, game.goal
    seats = W.shape[0]
    last = n - 1
    L = n if seats > 1 else period
    plans, profile, EQ = work.plans, work.profile, search.found
    for m in range(L):
        nkernels.place_member(a, m, n, goal, work)
        for r in range(n):
            EQ[0, m, r] = nkernels.share(W, n, (s0 + m) % seats, work.idxs[m], r)
    # a member with more plans in the window than max_plans narrows the window (for every member) until none
    # has, at most NARROWINGS times
    narrowed = False
    capped = False
    total = 1
    for narrowing in range(NARROWINGS + 1):
        width = search.window * 0.5**narrowing
        total = 1
        too_many = False
        for m in range(L):
            x = EQ[0, m + 1 if m + 1 < L else 0, last]
            low = max(x - width, 0.0)
            high = min(x + width, 1.0)
            plans.kept[m] = nkernels.member_plans(game, W, a, m, s0, work, low, high, search.max_plans)
            if plans.kept[m] == search.max_plans and plans.hi[m, search.max_plans - 1] < high:
                too_many = True
            total *= plans.kept[m]
        if not too_many:
            break
        narrowed = True
        if narrowing == NARROWINGS:
            capped = True
    found = 1
    for code in range(total):
        rest = code
        for m in range(L):
            i = rest % plans.kept[m]
            rest //= plans.kept[m]
            profile.seg[m] = i
            for r in range(n):
                profile.C[m, r] = plans.C[m, i, r]
            profile.D[m] = plans.d[m, i]
        cycle_vectors(profile.C, profile.D, L, n, profile.ws, profile.acc)
        ws = profile.ws
        consistent = True
        for m in range(L):
            x = ws[m + 1 if m + 1 < L else 0, last]
            if not (plans.lo[m, profile.seg[m]] - SLACK <= x <= plans.hi[m, profile.seg[m]] + SLACK):
                consistent = False
                break
        if not consistent:
            continue
        new = True
        for j in range(min(found, EQ.shape[0])):
            diff = 0.0
            for m in range(L):
                for r in range(n):
                    diff = max(diff, abs(ws[m, r] - EQ[j, m, r]))
            if diff <= SAME:
                new = False
                break
        if new:
            if found < EQ.shape[0]:
                for m in range(L):
                    for r in range(n):
                        EQ[found, m, r] = ws[m, r]
            found += 1
    return found, narrowed, capped


@njit(cache=True)
def search_levels(game, W, s_high, s_low, work, search, selection, records, multiple):  # pragma: no cover - numba
    """Search every cycle whose score sum lies in [s_low, s_high] for other pure equilibria (``_search_cycle``);
    return the ``SearchTally``.

    W (seats, goal^n, n) holds the solved values. The cycles with more than one equilibrium are
    numbered in the order met, from ``multiple`` (those met before) on: row ``multiple`` of ``records``
    (while it has rows) receives (seat * goal^n + flat index of the cycle's tuple, equilibria found, the
    most any value of the cycle differs from the solve's), and if ``selection`` has an entry j > 0 for
    it, equilibrium j (of those kept) is written into W.
    """
    n, goal = game.players, game.goal
    powers = work.powers
    seats = W.shape[0]
    EQ = search.found
    a = np.empty(n, dtype=np.int64)
    searched, met, capped_cycles, largest, most, narrowed_cycles = 0, 0, 0, 0.0, 0, 0
    top_power = powers[n - 1]
    for s in range(s_high, s_low - 1, -1):
        if s > n * (goal - 1):
            continue
        first_tuple(a, s, n, goal, 0)
        while True:
            period = cycle_period(a, n, goal, top_power)
            for s0 in range(period if seats > 1 else (1 if period > 0 else 0)):
                found, narrowed, capped = _search_cycle(game, W, a, period, s0, work, search)
                searched += 1
                if capped:
                    capped_cycles += 1
                if narrowed:
                    narrowed_cycles += 1
                most = max(most, found)
                if found < 2:
                    continue
                L = n if seats > 1 else period
                kept = min(found, MAX_FOUND)
                spread = 0.0
                for j in range(1, kept):
                    for m in range(L):
                        for r in range(n):
                            spread = max(spread, abs(EQ[j, m, r] - EQ[0, m, r]))
                largest = max(largest, spread)
                row = multiple + met
                if row < records.shape[0]:
                    records[row, 0] = s0 * powers[n] + work.idxs[0]
                    records[row, 1] = found
                    records[row, 2] = spread
                if row < selection.shape[0] and 0 < selection[row] < kept:
                    for m in range(L):
                        for r in range(n):
                            nkernels.put(W, n, (s0 + m) % seats, work.idxs[m], r, EQ[selection[row], m, r])
                met += 1
            if not next_tuple(a, n, goal):
                break
    return SearchTally(searched, met, capped_cycles, largest, most, narrowed_cycles)


class LevelSearch:
    """Searches the cycles of the levels a solve hands it (``solve_players``' level hook), optionally setting
    the cycles with several equilibria to chosen ones (``selection``, in the order they are met)."""

    def __init__(self, variant: Variant, players: int, selection: list[int] | None = None, width: int = 0,
                 cap: int = 0) -> None:  # fmt: skip
        """Prepare a search of the ``players``-player cycles of ``variant`` (``width``: totals past the goal)."""
        from pigdice.solve.tables import effect_table

        self.table, self.players, self.goal, self.cap = effect_table(variant), players, variant.goal, cap
        self.one_throw = variant.decision is Decision.DICE_PER_TURN
        self.equal_turns = variant.endgame is Endgame.EQUAL_TURNS
        self.selection = np.array(selection or [], dtype=np.int64)
        self.records = np.zeros((RECORD_ROWS, RECORD_COLUMNS))
        self.tally = NOTHING_SEARCHED
        self._rows(width)

    def _rows(self, width: int) -> None:
        totals = self.goal + (width + 1 if width else 0)
        self.work = cycle_rows(self.goal, totals, self.players, len(self.table.offsets) - 1)
        found = np.zeros((MAX_FOUND, self.players, self.players))
        self.search = CycleSearch(SEARCH_WINDOW, SEARCH_PLANS, found)
        self.width = width

    def restart(self) -> None:
        """Forget what was found (a solve starting again, e.g. with a longer banked table)."""
        self.records[:] = 0.0
        self.tally = NOTHING_SEARCHED

    def __call__(self, W: np.ndarray, s_high: int, s_low: int, banked: np.ndarray) -> None:
        """Search the levels s_low .. s_high of the solved values W (seats, goal^n, n); a solve starting
        again from the top (a longer banked table) starts the count again."""
        from pigdice.solve.two.endgame import bust_chance

        if s_high == self.players * (self.goal - 1):
            self.restart()

        width = banked.shape[1] if banked.shape[0] > 0 else 0
        if width != self.width:
            self._rows(width)
        game = players_game(self.table, self.goal, self.players, self.one_throw, banked, bust_chance(self.table),
                            self.cap, self.equal_turns)  # fmt: skip
        level = search_levels(game, W, s_high, s_low, self.work, self.search, self.selection, self.records,
                              self.tally.multiple)  # fmt: skip
        self.tally = _merged(self.tally, level)

    @property
    def found(self) -> list[int]:
        """Return the equilibria kept for each cycle with several, in the order met (while recorded)."""
        rows = min(self.tally.multiple, RECORD_ROWS)
        return [min(int(v), MAX_FOUND) for v in self.records[:rows, 1]]


@dataclass(frozen=True)
class EquilibriumReport:
    """What the search for other equilibria found: per cycle (local), and at the start (propagated)."""

    cycles: int  # cycles of the game
    searched: int  # cycles searched (all, unless MAX_SEARCH_CYCLES stopped the search)
    multiple: int  # cycles with more than one equilibrium found
    capped: int  # cycles whose members had more plans than were searched, even in the narrowest window
    largest_spread: float  # the most any value of one cycle differs between its equilibria (local)
    most: int  # the most equilibria found in one cycle
    narrowed: int = 0  # cycles searched in a narrower window (more than SEARCH_PLANS plans in the first)
    examples: list[dict[str, Any]] = field(default_factory=list)  # cycles with the largest spreads
    start: list[float] = field(default_factory=list)  # each seat's start value under the solve's equilibrium
    start_low: list[float] | None = None  # each seat's lowest start value over the equilibria solved
    start_high: list[float] | None = None
    solves: int = 0  # whole-game solves behind the start bounds (one per combination of equilibria)
    complete: bool = False  # every combination of the cycles' equilibria was solved
    why_not: str = ""  # why the start bounds are not given, or not complete

    def lines(self) -> list[tuple[str, str]]:
        """Return the report as (label, text) rows for people."""
        searched = f"{self.searched:,} of {self.cycles:,}" if self.searched < self.cycles else f"all {self.cycles:,}"
        found = f"{self.multiple:,} with more than one" if self.multiple else "none with more than one"
        if self.multiple:
            found += f" (a chance differs by up to {self.largest_spread:.1e})"
        rule = "where several choices are each a best reply: the one best replies reach from the positions above"
        rows = [("equilibrium", rule), ("other equilibria", f"searched {searched} turn-start cycles: {found}")]
        if self.start_low is not None and self.start_high is not None:
            spans = ", ".join(
                f"{low:.6f}" if high - low < 5e-7 else f"{low:.6f} to {high:.6f}"
                for low, high in zip(self.start_low, self.start_high, strict=True)
            )
            whole = f"all {self.solves}" if self.complete else f"the first {self.solves}"
            rows.append(("wins under other equilibria", f"{spans} by seat ({whole} combinations solved)"))
        else:
            rows.append(("wins under other equilibria", f"not computed: {self.why_not}"))
        return rows

    def to_json(self) -> dict[str, Any]:
        """Return the report as the ``equilibria`` object of ``pigdice solve --json``."""
        return {
            "selection_rule": SELECTION_RULE,
            "search": (
                f"each cycle alone, the other positions' values held at the solve's: every profile of each player's "
                f"choices for chances within {SEARCH_WINDOW} of the solve's (narrowed by halves, at most "
                f"{NARROWINGS} times, where a player has more than {SEARCH_PLANS} plans there)"
            ),
            "cycles": self.cycles,
            "cycles_searched": self.searched,
            "search_complete": self.searched == self.cycles,
            "cycles_with_several_equilibria": self.multiple,
            "cycles_searched_in_a_narrower_window": self.narrowed,
            "cycles_capped": self.capped,
            "most_equilibria_in_a_cycle": self.most,
            "largest_local_spread": self.largest_spread,
            "examples": self.examples,
            "bounds": "start (propagated: the whole game solved once per combination of equilibria)",
            "start_by_seat": self.start,
            "start_low_by_seat": self.start_low,
            "start_high_by_seat": self.start_high,
            "start_bounds_solves": self.solves,
            "start_bounds_complete": self.complete,
            "start_bounds_note": self.why_not,
        }


def _scores(key: int, goal: int, players: int) -> list[int]:
    """Return the scores (in turn order, the mover first) of a record's flat index."""
    index = key % goal**players
    return [(index // goal ** (players - 1 - r)) % goal for r in range(players)]


def count_cycles(goal: int, players: int, seats: int) -> int:
    """Return the number of cycles the solver solves: score tuples up to rotation (Burnside's count), or with a
    seat axis (equal turns) one per tuple, the seats telling its rotations apart."""
    from math import gcd

    if seats > 1:
        return goal**players
    return sum(goal ** gcd(t, players) for t in range(players)) // players


def search_policy(policy: Any, progress: Progress | None = None, max_cycles: int = MAX_SEARCH_CYCLES) -> dict[str, Any]:
    """Search every cycle of a solved ``PlayersPolicy`` (high score sums first, up to ``max_cycles``); return
    the counts (``SearchTally``), the cycles with several equilibria in the order met (their number
    in a ``LevelSearch`` selection) and the EXAMPLES of them with the largest spreads."""
    from pigdice.solve.n.nplayer import _states_at_sums

    goal, n = policy.goal, policy.players
    search = LevelSearch(policy.variant, n, width=policy.banked.shape[1] if policy.ending else 0, cap=policy.cap)
    weights = _states_at_sums(goal, n)
    total = float(weights.sum())
    done = 0.0
    W = policy.W  # compact or full: the search reads each entry as the solve does (``nkernels.share``)
    s = n * (goal - 1)
    while s >= 0 and search.tally.searched < max_cycles:
        low, chunk = s, weights[s]
        while low > 0 and chunk + weights[low - 1] <= min(PROGRESS_STATES, n * max_cycles):  # a cycle: n states
            low -= 1
            chunk += weights[low]
        search(W, s, low, policy.banked)
        done += chunk
        s = low - 1
        if progress is not None:
            progress(done / total, "searching for other equilibria")
    rows = min(search.tally.multiple, RECORD_ROWS)
    cycles: list[dict[str, Any]] = [
        {"scores": _scores(int(search.records[i, 0]), goal, n), "equilibria": int(search.records[i, 1]),
         "spread": float(search.records[i, 2])}
        for i in range(rows)
    ]  # fmt: skip
    examples = sorted(cycles, key=lambda cycle: -cycle["spread"])[:EXAMPLES]
    tally = search.tally
    return {"searched": tally.searched, "multiple": tally.multiple, "capped": tally.capped, "spread": tally.spread,
            "most": tally.most, "narrowed": tally.narrowed, "examples": examples, "cycles": cycles}  # fmt: skip


def start_bounds(
    variant: Variant, players: int, progress: Progress | None = None, max_solves: int = MAX_SOLVES
) -> tuple[list[float], list[float], int, bool, str]:
    """Solve the whole game once per combination of the cycles' equilibria found (depth first, at most
    ``max_solves`` solves); return each seat's lowest and highest start value, the solves, whether every
    combination was solved, and why not."""
    from pigdice.solve.n.nplayer import players_form, solve_players
    from pigdice.solve.tables import effect_table

    variant = players_form(variant, players)
    table = effect_table(variant)
    if table.has_reset:
        raise BadParameterError(
            f"{variant.name}: a reset sends the game back to lower score sums, so the solve is not one pass "
            "from the top and the start's bounds are not computed by re-solving level by level"
        )
    selection: list[int] = []
    low = high = None
    solves = 0
    while True:
        search = LevelSearch(variant, players, selection)
        policy = solve_players(variant, players, level_hook=search)
        start = np.array(policy.win_probability_by_seat())
        low = start if low is None else np.minimum(low, start)
        high = start if high is None else np.maximum(high, start)
        solves += 1
        if progress is not None:
            progress(min(solves / max_solves, 1.0), f"the start under other equilibria ({solves} solved)")
        if search.tally.multiple > RECORD_ROWS:
            return low.tolist(), high.tolist(), solves, False, f"more than {RECORD_ROWS} cycles have several"
        found = search.found
        chosen = selection + [0] * (len(found) - len(selection))
        place = len(found) - 1
        while place >= 0 and chosen[place] + 1 >= found[place]:
            place -= 1
        if place < 0:
            return low.tolist(), high.tolist(), solves, True, ""
        if solves >= max_solves:
            return low.tolist(), high.tolist(), solves, False, f"stopped after {max_solves} whole-game solves"
        selection = [*chosen[:place], chosen[place] + 1]


def equilibrium_report(
    policy: Any, progress: Progress | None = None, max_cycles: int = MAX_SEARCH_CYCLES, max_solves: int = MAX_SOLVES
) -> EquilibriumReport:
    """Return what the search for other equilibria finds for a solved ``PlayersPolicy``: per cycle, and the
    start's bounds over the combinations of them (when the search covered every cycle and found few)."""
    found = search_policy(policy, progress, max_cycles)
    start = policy.win_probability_by_seat()
    report = EquilibriumReport(
        cycles=count_cycles(policy.goal, policy.players, policy.seats),
        searched=found["searched"],
        multiple=found["multiple"],
        capped=found["capped"],
        narrowed=found["narrowed"],
        largest_spread=found["spread"],
        most=found["most"],
        examples=found["examples"],
        start=start,
    )
    if report.searched < report.cycles:
        return replace(report, why_not=f"searched {report.searched:,} of {report.cycles:,} cycles")
    if report.multiple == 0:
        return replace(report, start_low=start, start_high=start, solves=1, complete=True)
    if 2**report.multiple > max_solves:  # each such cycle at least doubles the combinations
        why = f"{report.multiple:,} cycles have several equilibria: at least 2^{report.multiple} combinations"
        return replace(report, why_not=why)
    try:
        low, high, solves, complete, why = start_bounds(policy.variant, policy.players, progress, max_solves)
    except BadParameterError as exc:
        return replace(report, why_not=str(exc))
    return replace(report, start_low=low, start_high=high, solves=solves, complete=complete, why_not=why)


REPORT_FILE_LIMIT = 1 << 20  # a kept report is a few kilobytes; a larger file is not one of ours


def report_path(policy: Any) -> Path:
    """Return where the report of ``policy`` is kept: beside the policy cache, named by its values' digest."""
    digest = hashlib.sha256(np.ascontiguousarray(policy.values).data).hexdigest()[:24]
    variant = policy.variant
    return cache_dir() / "equilibria" / f"{variant.name}-goal{policy.goal}-p{policy.players}-{digest}.json"


def kept_equilibrium_report(policy: Any, progress: Progress | None = None) -> EquilibriumReport:
    """Return ``equilibrium_report(policy)``, read from the report kept for the same values when there is one.

    The search takes tens of seconds at goal 100 and depends only on the values, so a report is kept
    under their digest; a damaged or foreign file is searched again and replaced.
    """
    path = report_path(policy)
    try:
        kept = json.loads(read_text(path, REPORT_FILE_LIMIT, "the kept equilibrium report"))
        return EquilibriumReport(**kept)
    except (OSError, ValueError, TypeError):
        pass  # none kept yet, or not a sound one: search again
    report = equilibrium_report(policy, progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(asdict(report)))
    except (OSError, ValueError):
        pass  # an unwritable cache only costs the next run the search
    return report
