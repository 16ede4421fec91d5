"""Exact evaluation of any agent against the perfect player (or any opponent): ``pigdice.evaluate``.

The agent is written out as an action table (``pigdice.study.agent_tables``: a spec, a Strategy, a
Python function, a table, a file or a trained model) and played exactly, never simulated:

- 2 players: both seats by ``pigdice.solve.two.headtohead`` (the linear system of the joint states),
  and the same for the perfect player in the agent's place, so the gap is stated; then the agent's
  choices are set beside the perfect player's at the positions it reaches, weighted by how often it
  reaches them (``pigdice.study.analysis``'s exact game chain, up to goal 200; beyond it every turn
  position counts once), with the chance each different choice gives away (the perfect player's chance
  after its own choice minus its chance after the agent's, playing perfectly from then on);
- 3 or more players: the agent reads (its score, the highest other score, turn total) against perfect
  n-player opponents, each seat pushed through the game's Markov chain
  (``pigdice.study.analysis.approximation.evaluate_games``);
- Swine Herd (2 players): the perfect player and hold:N, whose sit tables the equilibrium solver reads.

Endings other than first to the goal are evaluated in their first-to-goal form, and the result says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Strategy
from pigdice.players.specs import parse_strategy
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.exact import exact_policy, exactness
from pigdice.solve.n.nplayer import PlayersPolicy
from pigdice.solve.policy import Policy
from pigdice.solve.solver import TOLERANCE, solve
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.agent_tables import AgentTable, agent_table, is_table_file
from pigdice.study.analysis.approximation import MAX_EVALUATION_PLAYERS, Game, evaluate_games
from pigdice.study.analysis.chain import play_chain
from pigdice.study.analysis.turns import VISITS_MAX_GOAL, turn_outcomes
from pigdice.study.evaluate import exact_herd
from pigdice.study.saved_models import is_model_spec

Progress = Callable[[float, str], None]  # fraction done, what is running

COSTLY_POSITIONS = 10  # positions listed where the agent gives away most
SAME_CHOICE = 1e-12  # a choice that loses less than this is as good as the perfect one
REACHED_BASIS = "the positions the agent reaches, weighted by how often it reaches them (both seats)"
ALL_BASIS = "every turn position once (the game chain that weighs them is kept up to goal 200)"


@dataclass(frozen=True)
class CostlyPosition:
    """A position where the agent's choice differs from the perfect player's, and what it costs."""

    score: int
    opponent: int
    turn_total: int
    choice: str  # the agent's
    perfect: str  # the perfect player's
    chance_lost: float  # the perfect player's chance after its choice minus after the agent's
    reached: float | None  # expected visits per game (both seats averaged), None where not measured

    @property
    def expected_loss(self) -> float | None:
        """Return the chance the agent gives away here per game (reached x chance lost)."""
        return None if self.reached is None else self.reached * self.chance_lost

    def to_json(self) -> dict[str, Any]:
        """Return the position as JSON-ready data."""
        return {
            "score": self.score,
            "opponent": self.opponent,
            "turn_total": self.turn_total,
            "choice": self.choice,
            "perfect": self.perfect,
            "chance_lost": self.chance_lost,
            "reached_per_game": self.reached,
            "expected_loss_per_game": self.expected_loss,
        }


@dataclass(frozen=True)
class AgentEvaluation:
    """An agent's exact win chance in every seat, the perfect player's in the same seats, and where they differ."""

    variant: Variant  # the game evaluated (its first-to-goal form where the ending differs)
    agent: str
    opponent: str
    players: int
    seats: tuple[float, ...]  # the agent's win chance in each seat (seat 0 moves first)
    perfect_seats: tuple[float, ...]  # the perfect player's chance in the same seat against the same opponents
    same_choice_share: float | None  # the share of the agent's decisions as good as the perfect player's
    share_basis: str  # which decisions the share counts
    costly: tuple[CostlyPosition, ...]  # where the agent gives away most, worst first
    exact: bool  # False: the variant's own ending was not evaluated (see notes)
    notes: tuple[str, ...] = ()

    @property
    def average(self) -> float:
        """Return the agent's win chance averaged over the seats (each seat equally often)."""
        return sum(self.seats) / len(self.seats)

    @property
    def perfect_average(self) -> float:
        """Return the perfect player's win chance in the agent's place, averaged over the seats."""
        return sum(self.perfect_seats) / len(self.perfect_seats)

    @property
    def gap(self) -> float:
        """Return how much less often the agent wins than the perfect player would in its place."""
        return self.perfect_average - self.average

    def to_json(self) -> dict[str, Any]:
        """Return the evaluation as JSON-ready data (the shape of ``pigdice evaluate --json``)."""
        return {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "endgame": str(self.variant.endgame),
            "players": self.players,
            "agent": self.agent,
            "opponent": self.opponent,
            "method": "exact" if self.exact else "exact for the first-to-goal ending only (see notes)",
            "average": self.average,
            "seats": list(self.seats),
            "perfect_average": self.perfect_average,
            "perfect_seats": list(self.perfect_seats),
            "gap": self.gap,
            "same_choice_share": self.same_choice_share,
            "share_basis": self.share_basis,
            "costly_positions": [c.to_json() for c in self.costly],
            "notes": list(self.notes),
        }


def evaluate(
    agent: Any,
    variant: str | Variant = "pig",
    opponent: Any = "optimal",
    goal: int | None = None,
    players: int = 2,
    top: int = COSTLY_POSITIONS,
    progress: Progress | None = None,
) -> AgentEvaluation:
    """Return the exact evaluation of ``agent`` against ``opponent`` (the perfect player by default).

    ``agent`` (and ``opponent``) is a spec string, a Strategy, a function ``f(score, opponent_score,
    turn_total[, variant]) -> bool | "roll" | "hold"``, an action table (array, ``.npy``/``.npz`` path: roll 1,
    hold 0, indexed [my score, other score, turn total]), a model with ``predict(obs, action_masks=...)``, or a
    saved Stable-Baselines3 model file (``sb3:PATH``: its greedy choice at every position, read as
    ``pigdice.study.saved_models`` says).
    """
    chosen = _variant(variant, goal)
    if isinstance(players, bool) or not isinstance(players, int):
        raise BadParameterError(f"players must be a whole number, got {players!r}")
    chosen.check_players(players)
    if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= 1000:
        raise BadParameterError(f"top must be a whole number from 0 to 1000, got {top!r}")
    report = progress or (lambda _fraction, _what: None)
    if chosen.is_simultaneous:
        return _evaluate_herd(agent, chosen, opponent, players)
    form = chosen.first_to_goal()
    notes: list[str] = []
    if chosen.endgame is not Endgame.FIRST_TO_GOAL:
        notes.append(
            f"{chosen.name} ends with {chosen.endgame}; fixed agents are evaluated exactly with the first-to-goal "
            "ending only, so these figures are that game's"
        )
    mine = agent_table(agent, form, lambda f: report(0.3 * f, "the agent's table"))
    if players > 2:
        return _evaluate_players(mine, form, opponent, players, notes, report)
    return _evaluate_two(mine, form, opponent, top, notes, report)


def _variant(variant: str | Variant, goal: int | None) -> Variant:
    """Return the variant asked for, with ``goal`` if given."""
    if isinstance(variant, str):
        chosen = find_variant(variant, files=True)
    elif isinstance(variant, Variant):
        chosen = variant
    else:
        raise BadParameterError(f"variant must be a name such as 'pig' or a Variant, got {type(variant).__name__}")
    if goal is not None:
        if isinstance(goal, bool) or not isinstance(goal, int) or goal < 1:
            raise BadParameterError(f"the goal must be a whole number of at least 1, got {goal!r}")
        chosen = chosen.with_goal(goal)
    return chosen


def _is_perfect(opponent: Any) -> bool:
    """Return True if ``opponent`` is the spec of the perfect player."""
    return isinstance(opponent, str) and opponent.strip().lower() == "optimal"


def _evaluate_two(
    mine: AgentTable, form: Variant, opponent: Any, top: int, notes: list[str], report: Progress
) -> AgentEvaluation:
    """Return the 2-player evaluation: both seats, the perfect player's figure, the shared choices and the losses."""
    policy = solve(form, progress=lambda f, _what: report(0.3 + 0.2 * f, "solving the perfect player"))
    perfect = policy.action_table()
    if _is_perfect(opponent):
        theirs = AgentTable("the perfect player", perfect)
    else:
        theirs = agent_table(opponent, form, lambda f: report(0.5 + 0.1 * f, "the opponent's table"))
    report(0.6, "exact head-to-head")
    agent_result = head_to_head(form, mine.table, theirs.table)
    perfect_result = head_to_head(form, perfect, theirs.table)
    report(0.75, "the positions the agent reaches")
    reached = _reached(form, mine, theirs)
    share, differences = _compare_choices(
        policy, mine.table, perfect, reached, lambda f: report(0.8 + 0.2 * f, "comparing its choices")
    )
    costly = _costly(form, differences, top)
    report(1.0, "done")
    return AgentEvaluation(
        variant=form,
        agent=mine.name,
        opponent=theirs.name,
        players=2,
        seats=(agent_result.a_first, agent_result.b_first),
        perfect_seats=(perfect_result.a_first, perfect_result.b_first),
        same_choice_share=share,
        share_basis=REACHED_BASIS if reached is not None else ALL_BASIS,
        costly=costly,
        exact=not notes,
        notes=tuple(notes),
    )


def _reached(form: Variant, mine: AgentTable, theirs: AgentTable) -> np.ndarray | None:
    """Return the agent's expected visits per game to every position, both seats averaged (None past goal 200)."""
    goal = form.goal
    if goal > VISITS_MAX_GOAL:
        return None
    per_turn = form.decision is Decision.DICE_PER_TURN
    outcomes_mine = turn_outcomes(form, mine.table, visits=not per_turn)
    outcomes_theirs = turn_outcomes(form, theirs.table, visits=False)
    first = play_chain(form, outcomes_mine, outcomes_theirs, ("agent", "opponent"))
    second = play_chain(form, outcomes_theirs, outcomes_mine, ("opponent", "agent"))
    starts = (first.turn_starts[0] + second.turn_starts[1]) / 2
    if per_turn or outcomes_mine.visits is None:
        reached = np.zeros((goal, goal, goal))
        reached[:, :, 0] = starts
        return reached
    return starts[:, :, None] * outcomes_mine.visits


@dataclass(frozen=True)
class Differences:
    """The positions where the agent's choice costs something: indices, the chance lost, the visits per game."""

    scores: np.ndarray
    others: np.ndarray
    totals: np.ndarray
    agent_codes: np.ndarray
    perfect_codes: np.ndarray
    lost: np.ndarray
    reached: np.ndarray | None


def _compare_choices(
    policy: Policy,
    table: np.ndarray,
    perfect: np.ndarray,
    reached: np.ndarray | None,
    progress: Callable[[float], None],
) -> tuple[float, Differences]:
    """Return the (weighted) share of decisions that lose nothing, and where the others lose, one score at a time."""
    goal = policy.goal
    per_turn = policy.variant.decision is Decision.DICE_PER_TURN
    good = total = 0.0
    found: list[tuple[int, int, int, int, int, float, float]] = []
    totals_axis = np.arange(goal)
    for i in range(goal):
        inside = (totals_axis == 0) if per_turn else (totals_axis < goal - i)
        weight = reached[i] if reached is not None else np.broadcast_to(inside.astype(float), (goal, goal))
        weight = np.where(inside, weight, 0.0)
        lost = np.zeros((goal, goal))
        for j in np.nonzero(np.any((table[i] != perfect[i]) & inside, axis=1))[0]:
            lost[j] = _row_lost(policy, i, int(j), table[i, j], perfect[i, j] != table[i, j], inside, per_turn)
        total += float(weight.sum())
        good += float(weight[lost <= SAME_CHOICE].sum())
        for j, k in zip(*np.nonzero(lost > SAME_CHOICE), strict=True):
            found.append(
                (i, int(j), int(k), int(table[i, j, k]), int(perfect[i, j, k]), float(lost[j, k]), float(weight[j, k]))
            )
        progress((i + 1) / goal)
    rows = np.array(found, dtype=float).reshape(-1, 7)
    differences = Differences(
        rows[:, 0].astype(np.int64),
        rows[:, 1].astype(np.int64),
        rows[:, 2].astype(np.int64),
        rows[:, 3].astype(np.int64),
        rows[:, 4].astype(np.int64),
        rows[:, 5],
        rows[:, 6] if reached is not None else None,
    )
    return (good / total if total > 0 else 1.0), differences


def _row_lost(
    policy: Policy, i: int, j: int, codes: np.ndarray, differs: np.ndarray, inside: np.ndarray, per_turn: bool
) -> np.ndarray:
    """Return the chance lost at every turn total of (i, j): the perfect choice's value minus the agent's."""
    lost = np.zeros(len(codes))
    if per_turn:
        values = policy.dice_values(i, j)
        lost[0] = float(values.max() - values[int(codes[0]) - 1])
        return lost
    row = policy.turn(i, j)
    totals = np.nonzero(differs & inside)[0]
    chosen_codes = codes[totals].astype(np.int64)
    rolled = row.rolls[np.maximum(chosen_codes - 1, 0), totals]
    chosen = np.where(chosen_codes == 0, row.hold[totals], rolled)
    lost[totals] = np.maximum(row.win[totals] - chosen, 0.0)
    return lost


def _choice_name(form: Variant, code: int) -> str:
    """Return a table code as a player says it: hold, roll, or roll N dice."""
    if code == 0:
        return "hold"
    if not form.chooses_dice:
        return "roll"
    dice = form.choices[code - 1]
    return f"roll {dice} {'die' if dice == 1 else 'dice'}"


def _costly(form: Variant, differences: Differences, top: int) -> tuple[CostlyPosition, ...]:
    """Return the ``top`` positions where the agent gives away most (per game where reach is known)."""
    d = differences
    cost = d.lost * d.reached if d.reached is not None else d.lost
    order = [n for n in np.argsort(-cost, kind="stable")[:top] if cost[n] > 0]  # never-reached positions cost nothing
    return tuple(
        CostlyPosition(
            int(d.scores[n]),
            int(d.others[n]),
            int(d.totals[n]),
            _choice_name(form, int(d.agent_codes[n])),
            _choice_name(form, int(d.perfect_codes[n])),
            float(d.lost[n]),
            None if d.reached is None else float(d.reached[n]),
        )
        for n in order
    )


def _evaluate_players(
    mine: AgentTable, form: Variant, opponent: Any, players: int, notes: list[str], report: Progress
) -> AgentEvaluation:
    """Return the agent's exact chance in each seat of an n-player game against perfect players."""
    if not _is_perfect(opponent):
        raise BadParameterError(f"with {players} players the agent is evaluated against perfect players only")
    if players > MAX_EVALUATION_PLAYERS:
        raise BadParameterError(f"agents are evaluated exactly with 2 to {MAX_EVALUATION_PLAYERS} players")
    reason = exactness(form, players)
    if reason is not None:
        raise BadParameterError(reason)
    exact = exact_policy(form, players, progress=lambda f, _what: report(0.3 + 0.4 * f, "solving the perfect players"))
    if not isinstance(exact, PlayersPolicy):
        raise BadParameterError(f"the exact {players}-player policy of {form.name} is not a first-to-goal one")
    exact_ending = not notes
    outcomes = turn_outcomes(form, mine.table, visits=False)
    games = [Game(seat, True) for seat in range(players)]
    evaluation = evaluate_games(exact, games, outcomes, lambda f, _what: report(0.7 + 0.3 * f, "evaluation"))
    if evaluation.never_ends > TOLERANCE or outcomes.leftover > TOLERANCE:
        raise BadStrategyError(f"{mine.name} never ends some games (it never scores from some positions)")
    notes.append(
        f"with {players} players the agent reads its score, the highest other score and the turn total; "
        "its choices are not compared one by one with the perfect players', who read every score"
    )
    return AgentEvaluation(
        variant=form,
        agent=mine.name,
        opponent="the perfect players",
        players=players,
        seats=tuple(float(evaluation.wins[seat][seat]) for seat in range(players)),
        perfect_seats=tuple(exact.win_probability_by_seat()),
        same_choice_share=None,
        share_basis="not measured with 3 or more players",
        costly=(),
        exact=exact_ending,
        notes=tuple(notes),
    )


def _herd_strategy(agent: Any, variant: Variant) -> Strategy:
    """Return a Swine Herd agent: a spec or a Strategy (only those have sit tables)."""
    if isinstance(agent, str) and not is_table_file(agent) and not is_model_spec(agent):
        return parse_strategy(agent, variant)
    if isinstance(agent, Strategy):
        return agent
    raise BadStrategyError(
        f"{variant.name} is played by everyone at once: only the perfect player and hold:N are evaluated exactly"
    )


def _evaluate_herd(agent: Any, variant: Variant, opponent: Any, players: int) -> AgentEvaluation:
    """Return the 2-player Swine Herd evaluation of a spec (the perfect player and hold:N have sit tables)."""
    if players != 2:
        raise BadParameterError(f"{variant.name} is evaluated exactly for 2 players, not {players}")
    mine = _herd_strategy(agent, variant)
    theirs = _herd_strategy(opponent, variant)
    result = exact_herd(variant, mine, theirs)
    perfect = exact_herd(variant, parse_strategy("optimal", variant), theirs)
    if result is None or perfect is None:
        raise BadStrategyError(
            f"{variant.name} is played by everyone at once: only the perfect player and hold:N are evaluated "
            "exactly, up to goal 200"
        )
    return AgentEvaluation(
        variant=variant,
        agent=mine.name,
        opponent="the perfect player" if theirs.name == "optimal" else theirs.name,
        players=2,
        seats=(result.a_first, result.b_first),
        perfect_seats=(perfect.a_first, perfect.b_first),
        same_choice_share=None,
        share_basis=f"not measured in {variant.name}",
        costly=(),
        exact=True,
    )
