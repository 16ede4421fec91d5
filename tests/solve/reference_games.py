"""A deliberately simple reference for n-player games under every ending: plain-Python value iteration.

The exact solvers (numba kernels) are checked against this at every state. It shares nothing
with them but ``Position`` and the rules in ``pigdice.solve.positions``: it reads each
variant's exact effect distribution, moves with ``Effect.resolve`` and ends turns the way the
engine does (``pigdice.engine.game.apply`` / ``_end_turn`` / ``_best``), then iterates the
optimality equations over a dict of whole states until nothing changes.

A state (``State``) is everything the rest of the game depends on, by seat:

- ``scores``: every seat's banked score, seat 0 first;
- ``mover``: the seat to move;
- ``total``: the mover's turn total;
- ``owed``: None before anyone has reached the goal; afterwards the seats still owed a last
  turn *after* the mover, in the order they play (the engine's ``final_round`` without the mover).

Who finished in which order (first-to-reach ties) needs no field of its own: the game ends
with the last player to finish, and the others finished in turn order from the seat after
them (final round: the one who reached the goal, then the others in turn order; equal turns:
seats 0..n-1, where the seats before the one who reached the goal are below the goal and so
never tied for the win). That is the order of the engine's ``reached`` steps among the players
at or past the goal, and what ``Position.finished`` says.

Each player maximises their own share (1/number tied for a shared win); the mover's options
are taken in the order of preference of the tie-break (``positions.py``): at turn total 0 the
roll choices (fewest dice first) then holding, otherwise holding then the roll choices; an
option replaces the best so far only if it is better for the mover by more than INDIFFERENCE.

A player holds without a choice (and such a state is no decision point, so not among
``positions()``; ``values`` still reads it) when their score plus turn total is at or past the
``cap``, or when holding wins outright: at the goal first to the goal, from the last seat at
the goal under equal turns, ahead of everyone in the game's last turn. No roll can beat a sure
win and the tie-break holds at a turn total above 0 anyway, so this only bounds the totals.

The states are split into strongly connected components (Tarjan), solved in an order where
every component comes after all those it leads to; inside a component (the turn-start states
of one set of scores linked by busts and passes, with the turns in between, or more with
resets and subtractions) Gauss-Seidel sweeps run until the largest change is below
``TOLERANCE``. It is meant for small goals (5 to 12; 3 players at goal 8 take seconds).

Holding at turn total 0 (a pass) is legal, so where every player in turn would rather pass,
optimal play never ends and the optimality equations have many solutions; the values there
(and wherever play can reach those scores) are just the one the sweeps settled on. ``endless``
lists such scores (found only with a cap on the player who reaches the goal but not on the
last turn, ``cap_last_turn=False``, at small caps); ``refuse_endless=True`` raises
``EndlessGameError`` instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from operator import mul
from typing import NamedTuple

import numpy as np

from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.solve.positions import INDIFFERENCE, Position

TOLERANCE = 1e-14  # a component is solved once no sweep changes any value by this much
MAX_SWEEPS = 2_000  # per component (about 30 are needed); more means choices keep changing


class EndlessGameError(ValueError):
    """Optimal play never ends: at some scores every player passes (holds at turn total 0) in turn."""


Vector = tuple[float, ...]  # one win share per seat, seat 0 first


class State(NamedTuple):
    """A whole game state between two actions, by seat (see the module docstring)."""

    scores: tuple[int, ...]
    mover: int
    total: int
    owed: tuple[int, ...] | None


Outcome = State | Vector  # where a roll or a hold leads: a state, or the game over (the shares)
Option = tuple[str, list[tuple[float, Outcome]]]  # "hold", "roll" or "roll:N", and its outcomes
# an option ready to evaluate: (the game-over shares it gives by seat, the probabilities of going on, to which states)
Compiled = tuple[Vector, tuple[float, ...], tuple[int, ...]]
Answers = tuple[Vector, str, dict[str, float]]  # the win shares (mover first), the best option, each option's share


def reference_game(
    variant: Variant,
    players: int,
    cap: int | None = None,
    cap_last_turn: bool = True,
    refuse_endless: bool = False,
    mixed: Callable[[Position], dict[str, float]] | None = None,
) -> ReferenceGame:
    """Solve ``variant`` for ``players`` players exactly by value iteration (small goals only).

    ``cap``: a player whose score plus turn total is at or past it holds (where holding is
    legal). Every ending but first-to-goal needs one, unless the game has one throw per turn.
    ``cap_last_turn=False`` spares the game's very last turn (the last player stops anyway
    once ahead), as ``pigdice.solve.two.endgame.solve_endgame(cap=...)`` does. ``refuse_endless``:
    raise ``EndlessGameError`` if at some scores every player passes in turn (see ``endless``).
    ``mixed``: where a solver's equilibrium mixes (3+ players), the chance of each option it
    states (``PlayersPolicy.strategy``); at a decision where it names more than one option, the
    reference plays that mixture instead of its own choice (everything else it still chooses).
    """
    return ReferenceGame(variant, players, cap, cap_last_turn, refuse_endless, mixed)


class ReferenceGame:
    """Every state of one small game, solved; read it at a ``Position``."""

    def __init__(
        self,
        variant: Variant,
        players: int,
        cap: int | None = None,
        cap_last_turn: bool = True,
        refuse_endless: bool = False,
        mixed: Callable[[Position], dict[str, float]] | None = None,
    ) -> None:
        if variant.decision is Decision.SIMULTANEOUS:
            raise ValueError(f"{variant.name}: simultaneous play (Swine Herd) is not a turn-based game")
        if players < 2:
            raise ValueError(f"a game needs at least 2 players, not {players}")
        first_to_goal = variant.endgame is Endgame.FIRST_TO_GOAL
        can_hold = variant.decision is not Decision.DICE_PER_TURN
        if cap is None and not first_to_goal and can_hold:
            raise ValueError(
                f"{variant.name} under {variant.endgame}: turn totals past the goal are unbounded; give a cap"
            )
        if cap is not None and cap < variant.goal:
            raise ValueError(f"the cap ({cap}) must be at least the goal ({variant.goal})")
        self._learn_rules(variant, players, cap, cap_last_turn)
        self.refuse_endless = refuse_endless
        self.mixed = mixed
        self.mixtures: dict[int, dict[int, float]] = {}  # state number -> option -> chance, where ``mixed`` mixes
        self.states: list[State] = []  # every decision point, numbered
        self.number: dict[State, int] = {}
        self.option_names: list[list[str]] = []
        self.compiled: list[list[Compiled]] = []
        self._explore()
        if mixed is not None:
            for i, state in enumerate(self.states):
                stated = mixed(self.position(state)) if state.owed is None else {}
                if len(stated) > 1:
                    self.mixtures[i] = {self.option_names[i].index(name): p for name, p in stated.items()}
        self._solve()

    def _learn_rules(self, variant: Variant, players: int, cap: int | None, cap_last_turn: bool) -> None:
        """Keep what the moves read: the variant, the players, the cap and the effect distributions."""
        self.variant = variant
        self.players = players
        self.goal = variant.goal
        self.cap = cap
        self.cap_last_turn = cap_last_turn
        self.game_overs: dict[tuple[tuple[int, ...], int], Vector] = {}
        self.per_turn = variant.decision is Decision.DICE_PER_TURN
        self.final_roll = variant.endgame is Endgame.FINAL_ROUND and variant.final_turn is FinalTurn.ROLL
        self.names = ["roll"] if not variant.chooses_dice else [f"roll:{n}" for n in variant.choices]
        self.dists = [[(effect, float(p)) for effect, p in spec.distribution()] for spec in variant.rolls]

    # -- the rules (as pigdice.engine.game plays them) -----------------------------------------
    def _seeds(self) -> Iterator[State]:
        """Every state before anyone reached the goal, with turn totals below the goal (first to the
        goal) or the cap, where the mover has a choice."""
        n = self.players
        top = self.goal if self.cap is None or self.variant.endgame is Endgame.FIRST_TO_GOAL else self.cap
        for scores in itertools.product(range(self.goal), repeat=n):
            for mover in range(n):
                for total in range(1 if self.per_turn else top - scores[mover]):
                    state = State(scores, mover, total, None)
                    if not self._must_hold(state, {}):
                        yield state

    def _one_throw(self, state: State) -> bool:
        """Return True if the mover's turn is one banked throw: Hog, or a final roll (``is_final_roll``)."""
        return self.per_turn or (self.final_roll and state.owed is not None)

    def _must_hold(self, state: State, ended: dict[int, Outcome]) -> bool:
        """Return True if the mover holds without a choice: at the cap, or where holding wins outright.

        Holding wins outright when it reaches the goal first to the goal, ends the game from the
        last seat under equal turns, or ends a final round ahead of everyone: no roll can do
        better, and the tie-break (hold at a turn total above 0) would hold anyway.
        """
        if self._one_throw(state):
            return False
        new_score = state.scores[state.mover] + state.total
        if self.cap is not None and new_score >= self.cap and (self.cap_last_turn or state.owed != ()):
            return True
        outcome = self._end_turn(state, new_score, ended)
        return not isinstance(outcome, State) and outcome[state.mover] == 1.0

    def _moves(self, state: State) -> list[Option]:
        """Return the mover's options, the tie-break's favourite first."""
        ended: dict[int, Outcome] = {}  # what follows the end of the turn with each new score
        if self._one_throw(state):
            return self._rolls(state, ended)
        hold: Option = ("hold", [(1.0, self._end_turn(state, state.scores[state.mover] + state.total, ended))])
        if self._must_hold(state, ended):
            return [hold]
        rolls = self._rolls(state, ended)
        return [*rolls, hold] if state.total == 0 else [hold, *rolls]

    def _rolls(self, state: State, ended: dict[int, Outcome]) -> list[Option]:
        """Return one option per roll choice, with what each effect leads to (``engine.game.apply``)."""
        score, total = state.scores[state.mover], state.total
        one_throw = self._one_throw(state)
        options: list[Option] = []
        for name, dist in zip(self.names, self.dists, strict=True):
            outcomes: list[tuple[float, Outcome]] = []
            for effect, p in dist:
                new_score, new_total, ends = effect.resolve(score, total)
                outcome: Outcome
                if ends:
                    outcome = self._end_turn(state, new_score, ended)
                elif one_throw:
                    outcome = self._end_turn(state, new_score + new_total, ended)  # the throw is banked at once
                else:
                    outcome = State(state.scores, state.mover, new_total, state.owed)
                    if self._must_hold(outcome, ended):  # no decision there: it holds
                        outcome = self._end_turn(state, score + new_total, ended)
                outcomes.append((p, outcome))
            options.append((name, outcomes))
        return options

    def _end_turn(self, state: State, new_score: int, ended: dict[int, Outcome]) -> Outcome:
        """Return what follows the mover's turn ending with ``new_score`` (``engine.game._end_turn``)."""
        if new_score in ended:
            return ended[new_score]
        n, mover = self.players, state.mover
        scores = (*state.scores[:mover], new_score, *state.scores[mover + 1 :])
        outcome: Outcome
        if state.owed is not None:
            owed: tuple[int, ...] | None = state.owed  # a last turn: nothing new is triggered
        elif new_score < self.goal:
            owed = None
        elif self.variant.endgame is Endgame.FIRST_TO_GOAL:
            owed = ()
        elif self.variant.endgame is Endgame.FINAL_ROUND:
            owed = tuple((mover + r) % n for r in range(1, n))
        else:  # equal turns: only the later seats play again
            owed = tuple(range(mover + 1, n))
        if owed is None:
            outcome = State(scores, (mover + 1) % n, 0, None)
        elif owed:
            outcome = State(scores, owed[0], 0, owed[1:])
        else:
            outcome = self._game_over(scores, mover)
        ended[new_score] = outcome
        return outcome

    def _game_over(self, scores: tuple[int, ...], last: int) -> Vector:
        """Return the shares once ``last`` has played the game's last turn (``engine.game._best``)."""
        shares = self.game_overs.get((scores, last))
        if shares is None:
            n = self.players
            order = [(last + r) % n for r in range(1, n + 1)]  # who finished first, ..., ``last``
            if self.variant.endgame is Endgame.FIRST_TO_GOAL:
                tied = [last]  # the one who reached the goal
            else:
                top = max(scores)
                tied = [p for p in order if scores[p] == top]
                if self.variant.ties is TieRule.FIRST_TO_REACH:
                    tied = tied[:1]
            shares = self.game_overs[(scores, last)] = tuple(1.0 / len(tied) if p in tied else 0.0 for p in range(n))
        return shares

    # -- solving --------------------------------------------------------------------------
    def _compile(self, outcomes: list[tuple[float, Outcome]], add: bool) -> Compiled:
        """Return (the game-over shares, the probabilities, the numbers of the states it goes on to)."""
        over = [0.0] * self.players
        probabilities, following = [], []
        for p, outcome in outcomes:
            if isinstance(outcome, State):
                j = self.number.get(outcome)
                if j is None:
                    if not add:
                        raise KeyError(f"{outcome} is not a state of this game")
                    j = self.number[outcome] = len(self.states)
                    self.states.append(outcome)
                probabilities.append(p)
                following.append(j)
            else:
                over = [a + p * v for a, v in zip(over, outcome, strict=True)]
        return tuple(over), tuple(probabilities), tuple(following)

    def _explore(self) -> None:
        """Number the seeds and every decision point reachable from one; record their options."""
        for state in self._seeds():
            self.number[state] = len(self.states)
            self.states.append(state)
        i = 0
        while i < len(self.states):  # grows as new states turn up
            options = self._moves(self.states[i])
            self.option_names.append([name for name, _ in options])
            self.compiled.append([self._compile(outcomes, add=True) for _, outcomes in options])
            i += 1
        self.successors = [sorted({j for _, _, following in options for j in following}) for options in self.compiled]

    def _components(self) -> list[list[int]]:
        """Return the strongly connected components, each after every component it leads to (Tarjan)."""
        index: dict[int, int] = {}
        low: dict[int, int] = {}
        stack: list[int] = []
        on_stack: set[int] = set()
        components: list[list[int]] = []
        finished: dict[int, int] = {}  # the order in which the search left each state
        for root in range(len(self.states)):
            if root in index:
                continue
            index[root] = low[root] = len(index)
            stack.append(root)
            on_stack.add(root)
            work = [(root, iter(self.successors[root]))]
            while work:
                node, successors = work[-1]
                for nxt in successors:
                    if nxt not in index:
                        index[nxt] = low[nxt] = len(index)
                        stack.append(nxt)
                        on_stack.add(nxt)
                        work.append((nxt, iter(self.successors[nxt])))
                        break
                    if nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                else:
                    work.pop()
                    finished[node] = len(finished)
                    if work:
                        parent = work[-1][0]
                        low[parent] = min(low[parent], low[node])
                    if low[node] == index[node]:
                        component = []
                        while True:
                            member = stack.pop()
                            on_stack.discard(member)
                            component.append(member)
                            if member == node:
                                break
                        component.sort(key=finished.__getitem__)  # what a state leads to first, cycles aside
                        components.append(component)
        return components

    def _share(self, option: Compiled, seat: int) -> float:
        """Return what ``option`` is worth to ``seat`` under the current values."""
        over, probabilities, following = option
        return over[seat] + sum(map(mul, probabilities, map(self.shares[seat].__getitem__, following)))

    def _choice(self, mover: int, options: list[Compiled]) -> int:
        """Return the option the tie-break picks: the favourite unless another is better by INDIFFERENCE."""
        shares = [self._share(option, mover) for option in options]
        best = 0
        for o in range(1, len(shares)):
            if shares[o] > shares[best] + INDIFFERENCE:
                best = o
        return best

    def _update(self, i: int) -> float:
        """Give state ``i`` the shares of the option its mover picks (or the stated mixture); return the largest
        change."""
        options = self.compiled[i]
        mixture = self.mixtures.get(i) or {self._choice(self.states[i].mover, options): 1.0}
        change = 0.0
        for seat, shares in enumerate(self.shares):
            new = sum(p * self._share(options[o], seat) for o, p in mixture.items())
            change = max(change, abs(new - shares[i]))
            shares[i] = new
        return change

    def _solve(self) -> None:
        n = self.players
        self.shares = [[1.0 / n] * len(self.states) for _ in range(n)]  # shares[seat][state number]
        for component in self._components():
            if len(component) == 1 and component[0] not in self.successors[component[0]]:
                self._update(component[0])  # all it leads to is solved already
                continue
            for _ in range(MAX_SWEEPS):  # Gauss-Seidel
                if max([self._update(i) for i in component]) < TOLERANCE:
                    break
            else:
                passing = sorted({self.states[i].scores for i in component if self._passes(i)})
                raise EndlessGameError(
                    f"no convergence in {MAX_SWEEPS} sweeps over {len(component)} states; players pass "
                    f"(hold at turn total 0) at scores {passing[:6]}: a war of attrition the rules leave open"
                )
        self.endless = self._endless()  # scores (by seat) where optimal play passes for ever
        if self.endless and self.refuse_endless:
            raise EndlessGameError(
                f"optimal play passes forever at scores {self.endless[:6]} ({len(self.endless)} in all): every "
                "player in turn holds at turn total 0, so the game never ends and the rules leave its values open"
            )

    def _passes(self, i: int) -> bool:
        """Return True if the mover of state ``i`` passes: holds at turn total 0 before the goal is reached."""
        state = self.states[i]
        if state.total != 0 or state.owed is not None:
            return False
        return self.option_names[i][self._choice(state.mover, self.compiled[i])] == "hold"

    def _endless(self) -> list[tuple[int, ...]]:
        """Return the scores (by seat) at which every player passes in turn: optimal play never ends there."""
        passing: dict[tuple[int, ...], int] = {}
        for i, state in enumerate(self.states):
            if self._passes(i):
                passing[state.scores] = passing.get(state.scores, 0) + 1
        return sorted(scores for scores, movers in passing.items() if movers == self.players)

    # -- reading it at a Position ---------------------------------------------------------
    def state(self, position: Position) -> State:
        """Return the seat-based state of ``position``."""
        n = self.players
        if position.players != n:
            raise ValueError(f"this reference is for {n} players, not {position.players}")
        seat = position.seat
        scores = [0] * n
        for r, score in enumerate(position.scores):
            scores[(seat + r) % n] = score
        owed = None if position.final is None else tuple((seat + r) % n for r in position.final)
        return State(tuple(scores), seat, position.turn_total, owed)

    def position(self, state: State) -> Position:
        """Return the Position of ``state`` (mover first)."""
        n, seat = self.players, state.mover
        scores = tuple(state.scores[(seat + r) % n] for r in range(n))
        final = None if state.owed is None else tuple((p - seat) % n for p in state.owed)
        return Position(scores, state.total, seat, final)

    def _options_at(self, position: Position) -> tuple[list[str], list[Compiled]]:
        """Return the option names and compiled options at ``position``.

        A forced hold (not a decision, so not a solved state) is read one step ahead.
        """
        state = self.state(position)
        i = self.number.get(state)
        if i is not None:
            return self.option_names[i], self.compiled[i]
        unknown = KeyError(f"{position} is not a state of this game (positions() lists them)")
        if (state.owed is None and max(state.scores) >= self.goal) or not self._must_hold(state, {}):
            raise unknown
        options = self._moves(state)
        try:
            return [name for name, _ in options], [self._compile(outcomes, add=False) for _, outcomes in options]
        except KeyError:
            raise unknown from None

    def _mover_first(self, option: Compiled, seat: int) -> tuple[float, ...]:
        n = self.players
        return tuple(self._share(option, (seat + r) % n) for r in range(n))

    def values(self, position: Position) -> tuple[float, ...]:
        """Return the win shares under optimal play (the stated mixture where there is one), mover first."""
        _, options = self._options_at(position)
        i = self.number.get(self.state(position))
        mixture = self.mixtures.get(i) if i is not None else None
        if mixture:
            parts = [(p, self._mover_first(options[o], position.seat)) for o, p in mixture.items()]
            return tuple(sum(p * v[r] for p, v in parts) for r in range(self.players))
        return self._mover_first(options[self._choice(position.seat, options)], position.seat)

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's share for each option: "hold", "roll" or "roll:N" (only "hold" where it must hold)."""
        names, options = self._options_at(position)
        return {name: self._share(option, position.seat) for name, option in zip(names, options, strict=True)}

    def action_vectors(self, position: Position) -> dict[str, tuple[float, ...]]:
        """Return every player's shares for each option, mover first."""
        names, options = self._options_at(position)
        return {name: self._mover_first(option, position.seat) for name, option in zip(names, options, strict=True)}

    def best(self, position: Position) -> str:
        """Return the option the tie-break picks at ``position``."""
        names, options = self._options_at(position)
        return names[self._choice(position.seat, options)]

    def positions(self) -> Iterator[Position]:
        """Yield every decision point solved (turn totals past the goal and last turns included; forced holds not)."""
        for state in self.states:
            yield self.position(state)

    def __len__(self) -> int:
        return len(self.states)


# -- the golden export (tests/data/make_endings_reference.py writes it, tests/solve/test_nplayer_endings.py reads it)
# A position is stored as one int16 row: the mover's seat, the three scores (mover first), the turn total and
# the last-turn code (-1: nobody has reached the goal; 0: the mover plays the game's last turn; r: the player
# r places after the mover plays after them).


def final_code(position: Position) -> int:
    """Return the last-turn code of ``position``: -1 (no final round), 0 (the game's last turn) or r."""
    if position.final is None:
        return -1
    if len(position.final) > 1:
        raise ValueError(f"{position}: a stored position has at most one player owed a turn after the mover")
    return position.final[0] if position.final else 0


def position_row(position: Position) -> tuple[int, ...]:
    """Return the stored row of ``position`` (seat, scores, turn total, last-turn code)."""
    return (position.seat, *position.scores, position.turn_total, final_code(position))


def position_at(row: Iterable[int]) -> Position:
    """Return the Position of one stored row (seat, scores, turn total, last-turn code)."""
    seat, *scores, total, code = (int(v) for v in row)
    final = None if code < 0 else (() if code == 0 else (code,))
    return Position(tuple(scores), total, seat, final)


def option_names(game: ReferenceGame) -> list[str]:
    """Return the options of a game in stored column order: hold (where the variant can hold), then the rolls."""
    return (["hold"] if game.variant.can_hold else []) + list(game.names)


def stored_answers(game: ReferenceGame) -> dict[str, np.ndarray]:
    """Return the reference's answers at every decision point, sorted by (seat, last-turn code, scores, total).

    ``positions``: int16 rows; ``win``: the win shares, mover first; ``best``: the index of the option the
    tie-break picks; ``action_values``: the mover's share for each option, nan where it is not legal.
    """
    options = option_names(game)
    keyed = sorted(((p.seat, final_code(p), *p.scores, p.turn_total), p) for p in game.positions())
    positions = [p for _, p in keyed]  # the keys are unique, so the Positions themselves are never compared
    win = np.array([game.values(p) for p in positions], dtype=np.float64).reshape(-1, game.players)
    best = np.array([options.index(game.best(p)) for p in positions], dtype=np.int8)
    values = np.full((len(positions), len(options)), np.nan)
    for i, p in enumerate(positions):
        for option, value in game.action_values(p).items():
            values[i, options.index(option)] = value
    rows = np.array([position_row(p) for p in positions], dtype=np.int16).reshape(-1, game.players + 3)
    return {"positions": rows, "win": win, "best": best, "action_values": values, "options": np.array(options)}


def one_step_answers(game: ReferenceGame, position: Position, win_at: Callable[[Position], Vector]) -> Answers:
    """Return (the win shares, the best option, each option's share) at ``position`` by one step of the
    reference's rules, reading the positions it leads to with ``win_at`` (mover first), as its solve does.

    ``game`` may be unsolved (``rules_only``): this checks stored answers without solving the game again.
    """
    state = game.state(position)
    n, seat = game.players, position.seat
    options = game._moves(state)
    vectors: dict[str, Vector] = {}
    for name, outcomes in options:
        by_seat = [0.0] * n
        for p, outcome in outcomes:
            if isinstance(outcome, State):
                after = game.position(outcome)
                shares = win_at(after)  # mover first: entry r is seat after.seat + r
                outcome = tuple(shares[(s - after.seat) % n] for s in range(n))
            by_seat = [a + p * v for a, v in zip(by_seat, outcome, strict=True)]
        vectors[name] = tuple(by_seat[(seat + r) % n] for r in range(n))
    best = 0
    names = list(vectors)
    for o in range(1, len(names)):
        if vectors[names[o]][0] > vectors[names[best]][0] + INDIFFERENCE:
            best = o
    return vectors[names[best]], names[best], {name: vector[0] for name, vector in vectors.items()}


def rules_only(variant: Variant, players: int, cap: int | None, cap_last_turn: bool = True) -> ReferenceGame:
    """Return a reference game that knows the rules (its moves) but has explored and solved nothing."""
    game = ReferenceGame.__new__(ReferenceGame)
    game._learn_rules(variant, players, cap, cap_last_turn)
    return game
