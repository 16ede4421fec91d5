"""Exact policies for the game as it is played: which solver answers a (variant, players), and the caches.

- 2 players, first to the goal: ``pigdice.solve.solver`` (seed 003's equations);
- 2 players, final round or equal turns (either tie rule): ``pigdice.solve.two.endgame``;
- 3+ players, first to the goal, and 3 players under a final round or equal turns:
  ``pigdice.solve.n.nplayer`` (values per seat);
- Swine Herd: 2 players ``pigdice.solve.herd.swineherd_policy`` (kept in memory: half a second at goal 100),
  3 players ``pigdice.solve.herd.swineherd_n_policy`` (kept on disk too). A 3-player equilibrium takes minutes
  past goal HERD_GROUP_QUICK_GOAL, so play uses it only where it is at hand (``herd_group_at_hand``);
- anything else has no exact solver yet; ``exactness`` says why, and the perfect player then
  approximates and says how (``pigdice.players.optimal``).

Every policy answers at a ``Position`` (``pigdice.solve.positions``) through the same methods
(``ExactPolicy``), is solved on first use, and is kept on disk and in memory like the
2-player first-to-goal policies.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Endgame, Variant
from pigdice.solve.policyfile import cache_dir, remove_partial_files, solvable
from pigdice.solve.positions import Position
from pigdice.solve.solved import SolvedPolicy

if TYPE_CHECKING:  # the solver loads numba: imported where a solve or a solved policy is needed
    from pigdice.solve.policy import Policy
    from pigdice.solve.solver import PolicyCache, Progress

MAX_EXACT_PLAYERS = 10  # past this no exact solver is even tried (memory refuses far earlier)
ENDING_PLAYERS = 4  # a final round or equal turns is solved exactly for up to this many players
HERD_GOAL = 200  # Swine Herd's solver takes goals up to this (``swineherd.MAX_GOAL``; named here without numba)
HERD_GROUP = 3  # ... and 3-player Swine Herd's (``swineherd_n``) up to HERD_GROUP_GOAL
HERD_GROUP_GOAL = 120  # ``swineherd_n.MAX_GOAL``
# The largest goal whose 3-player equilibrium (with its exploitability) is solved on demand in play: 1.3 CPU-s at
# 20, 2.8 at 21 (the tracing starts there), 6.5 at 30 and ~27 CPU-minutes at 50 (2-core AMD EPYC, December 2026).
HERD_GROUP_QUICK_GOAL = 20
HERD_GROUP_FORMAT = 1  # ``swineherd_n_policy.FORMAT_VERSION``: the cached 3-player equilibrium's file format


ExactPolicy = SolvedPolicy  # every solver's policy derives from it (``pigdice.solve.solved``)


@dataclass
class FirstToGoalPolicy(SolvedPolicy):
    """The 2-player first-to-goal ``Policy`` seen through ``ExactPolicy``."""

    policy: Policy
    players: int = 2

    @property
    def variant(self) -> Variant:
        """Return the solved variant."""
        return self.policy.variant

    @property
    def seconds(self) -> float:
        """Return how long the solve took."""
        return self.policy.seconds

    @property
    def from_cache(self) -> bool:
        """Return True if the policy came from a cache."""
        return self.policy.from_cache

    @from_cache.setter
    def from_cache(self, value: bool) -> None:
        self.policy.from_cache = value

    @property
    def nbytes(self) -> int:
        """Return the bytes of the policy's arrays."""
        return self.policy.nbytes

    @property
    def states(self) -> int:
        """Return the number of non-terminal states."""
        return self.policy.states

    @property
    def iterations(self) -> int:
        """Return the passes the solve took."""
        return self.policy.iterations

    @property
    def residual(self) -> float:
        """Return the solve's Bellman residual."""
        return self.policy.residual

    def _view(self, position: Position) -> tuple[int, int, int]:
        if position.players != 2:
            raise BadParameterError(f"this policy is for 2 players, not {position.players}")
        if position.final is not None:
            raise BadParameterError("first to the goal wins: there is no final round")
        score, other = position.scores
        return score, other, position.turn_total

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win probability for each legal option."""
        return self.policy.action_values(*self._view(position))

    def best(self, position: Position) -> str:
        """Return the perfect player's option."""
        choice = self.policy.best_choice(*self._view(position))
        variant = self.variant
        if choice == 0:
            return "hold"
        return f"roll:{variant.choices[choice - 1]}" if variant.chooses_dice else "roll"

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return (the mover's, the other's) win probability."""
        mine = self.policy.win_probability(*self._view(position))
        return mine, 1.0 - mine

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's win probability at the start."""
        first = float(self.policy.values[0, 0])
        return [first, 1.0 - first]

    def save(self, path: Path) -> None:
        """Save the policy to ``path`` (.npz)."""
        self.policy.save(path)

    def first_to_goal(self) -> Policy:
        """Return the plain ``Policy`` this adapter answers through."""
        return self.policy


def plain_policy(policy: ExactPolicy) -> Policy:
    """Return the plain 2-player first-to-goal ``Policy`` inside ``policy``; raise BadParameterError otherwise."""
    plain = policy.first_to_goal()
    if plain is None:
        raise BadParameterError(f"the {policy.variant.name} policy is not a 2-player first-to-goal one")
    return plain


def start_action(policy: ExactPolicy) -> int | str:
    """Return what the perfect player does at the start: the turn total it holds at, or the dice it throws."""
    variant = policy.variant
    start = Position((0,) * policy.players)
    if variant.is_simultaneous:  # the first total where the herd's equilibrium sits more often than not
        standing = (True,) * policy.players
        for k in range(1, variant.goal):  # at the goal everyone standing sits (no choice there)
            if policy.best(Position(start.scores, k, standing=standing)) == "hold":
                return k
        return variant.goal
    if not variant.can_hold:
        return variant.choices[0] if policy.best(start) == "hold" else int(policy.best(start).split(":")[1])
    for k in range(1, variant.goal + 1):
        if policy.best(Position(start.scores, k)) == "hold":
            return k
    return variant.goal


def exactness(variant: Variant, players: int) -> str | None:
    """Return None if an exact solver plays ``variant`` with ``players`` players, else what is missing.

    Memory is not checked here: ``exact_policy`` refuses a goal too large for this machine.
    """
    if variant.two_dice_sets:
        return "with two sets of dice two players' turns are under way at once, and no solver models that"
    if variant.is_simultaneous:
        if players == HERD_GROUP:  # past the quick goals only a solve asked for (minutes) makes it exact in play
            refusal = herd_group_refusal(variant, players)
            if refusal is not None:
                return refusal
            if herd_group_at_hand(variant, players):
                return None
            return (
                f"the {players}-player Swine Herd equilibrium for goal {variant.goal} has not been worked out here yet "
                "(that takes minutes)"
            )
        if players != 2:
            return f"Swine Herd is solved exactly for 2 or {HERD_GROUP} players, not {players}"
        if variant.goal > HERD_GOAL:
            return f"Swine Herd is solved exactly up to goal {HERD_GOAL}"
        return None
    if players < 2 or players > MAX_EXACT_PLAYERS:
        return f"no exact solver for {players} players"
    if variant.endgame is not Endgame.FIRST_TO_GOAL and players > ENDING_PLAYERS:
        return f"the {variant.endgame} ending is solved exactly for 2 to {ENDING_PLAYERS} players, not {players}"
    return None


def herd_group_refusal(variant: Variant, players: int) -> str | None:
    """Return why 3-player Swine Herd's solver (``herd.swineherd_n``) does not take ``variant``, or None if it does."""
    if not variant.sits_at_goal:
        return (
            f"{players}-player Swine Herd is solved exactly when everyone standing sits down once the turn total "
            "takes them all to the goal"
        )
    if variant.goal > HERD_GROUP_GOAL:
        return f"{players}-player Swine Herd is solved exactly up to goal {HERD_GROUP_GOAL}"
    return None


def herd_group_at_hand(variant: Variant, players: int = HERD_GROUP) -> bool:
    """Return True if play may use the 3-player Swine Herd equilibrium of ``variant`` without a long wait: its goal
    solves in a second or two (HERD_GROUP_QUICK_GOAL), or it is in this process's memory or the disk cache."""
    if variant.goal <= HERD_GROUP_QUICK_GOAL:
        return True
    kept = _MEMORY is not None and _MEMORY.get(exact_key(variant, players)) is not None  # no cache made: no solver
    return kept or exact_cache_path(variant, players).exists()


def solver_kind(variant: Variant, players: int) -> str:
    """Return which exact solver answers: 'first-to-goal', 'endgame', 'players' or 'swine-herd'.

    3-player Swine Herd is solved here at any goal its solver takes, although play uses it only where it is at
    hand (``exactness``).
    """
    if variant.is_simultaneous and players == HERD_GROUP:
        refusal = herd_group_refusal(variant, players)
        if refusal is not None:
            raise BadParameterError(refusal)
        return "swine-herd"
    reason = exactness(variant, players)
    if reason is not None:
        raise BadParameterError(reason)
    if variant.is_simultaneous:
        return "swine-herd"
    if players > 2:
        return "players"
    return "first-to-goal" if variant.endgame is Endgame.FIRST_TO_GOAL else "endgame"


def _exact_form(variant: Variant) -> Variant:
    """Return the variant as the exact solvers key it: only first-to-goal forgets the tie rule and final turn."""
    return variant.first_to_goal() if variant.endgame is Endgame.FIRST_TO_GOAL else variant


def exact_key(variant: Variant, players: int) -> str:
    """Return what identifies an exact solve: solver, players, name, goal and the rules' fingerprint."""
    kind = solver_kind(variant, players)
    if kind == "swine-herd":  # ``swineherd_n_policy.rules_key``
        rules = f"{variant.fingerprint()}-{'sit' if variant.sits_at_goal else 'roll-on'}"
    elif variant.endgame is Endgame.FIRST_TO_GOAL:
        rules = variant.fingerprint()
    else:
        from pigdice.solve.two.endgame import endgame_key

        rules = endgame_key(variant)
    return f"{variant.name}-goal{variant.goal}-p{players}-{kind}-{rules}"


def exact_cache_path(variant: Variant, players: int) -> Path:
    """Return where the exact policy of ``variant`` with ``players`` players is cached on disk."""
    kind = solver_kind(variant, players)
    if kind == "swine-herd":  # no solver imported: a hint asks whether the equilibrium is at hand
        return cache_dir() / f"{exact_key(variant, players)}-v{HERD_GROUP_FORMAT}.npz"
    from pigdice.solve.n import nplayer
    from pigdice.solve.two import endgame

    version = endgame.FORMAT_VERSION if kind == "endgame" else nplayer.FORMAT_VERSION
    return cache_dir() / f"{exact_key(variant, players)}-v{version}.npz"


_MEMORY: PolicyCache[ExactPolicy] | None = None  # made on first use: the cache's home loads the solver
_MEMORY_LOCK = threading.Lock()


def _memory() -> PolicyCache[ExactPolicy]:
    """Return this process's cache of exact policies (other than 2-player first-to-goal ones)."""
    global _MEMORY
    with _MEMORY_LOCK:
        if _MEMORY is None:
            from pigdice.solve.solver import PolicyCache

            _MEMORY = PolicyCache()
        return _MEMORY


def cached_exact(variant: Variant, players: int) -> ExactPolicy | None:
    """Return the exact policy kept in this process's memory, or None: never solves, never reads the disk."""
    variant = _exact_form(variant)
    if exactness(variant, players) is not None:  # no exact policy exists to keep (two sets of dice)
        return None
    if solver_kind(variant, players) == "first-to-goal":
        from pigdice.solve.solver import cached

        policy = cached(variant)
        return None if policy is None else FirstToGoalPolicy(policy)
    return _memory().get(exact_key(variant, players))


def remember_exact(policy: ExactPolicy) -> None:
    """Keep ``policy`` (solved elsewhere, e.g. in a worker process) in this process's memory cache."""
    plain = policy.first_to_goal()
    if plain is not None:
        from pigdice.solve.solver import remember

        remember(plain)
        return
    _memory().put(exact_key(policy.variant, policy.players), policy)


def exact_policy(
    variant: Variant, players: int = 2, progress: Progress | None = None, use_cache: bool = True
) -> ExactPolicy:
    """Return the exact policy of ``variant`` played by ``players``: from memory, the disk cache or a solve.

    Raises BadParameterError where no exact solver exists (``exactness``) and ResourceLimitError
    before allocating where this machine lacks the memory.
    """
    if variant.is_simultaneous:
        return _swine_herd_policy(variant, players, use_cache, progress)
    variant = _exact_form(variant.require_turns("the exact solvers"))
    kind = solver_kind(variant, players)
    if kind == "first-to-goal":
        from pigdice.solve.solver import solve

        return FirstToGoalPolicy(solve(variant, use_cache=use_cache, progress=progress))
    key = exact_key(variant, players)
    if use_cache:
        kept = _memory().get(key)
        if kept is not None:
            kept.from_cache = True
            return kept
    from pigdice.solve.n import nplayer
    from pigdice.solve.two import endgame

    path = exact_cache_path(variant, players)
    policy: ExactPolicy | None = None
    if use_cache and path.exists():
        try:  # each load checks the file against its schema, checksums included (``policyreader``)
            if kind == "endgame":
                policy = endgame.EndgamePolicy.load(path, variant)
            else:
                policy = nplayer.PlayersPolicy.load(path, variant, players)
        except BadParameterError:
            policy = None  # a stale or damaged cache file is solved again (and replaced)
    if policy is None:
        if kind == "endgame":
            policy = endgame.solve_endgame(variant, progress=progress)
        else:
            policy = nplayer.solve_players(variant, players, progress=progress)
        if use_cache:
            try:
                policy.save(path)
            except OSError:
                pass  # a read-only cache only costs a solve next time
    if use_cache:
        _memory().put(key, policy)
    return policy


def _swine_herd_policy(
    variant: Variant, players: int, use_cache: bool, progress: Progress | None = None
) -> ExactPolicy:
    """Return Swine Herd's exact equilibrium from memory, the disk cache (3 players) or a solve.

    2 players take half a second at goal 100 and are kept in memory only; 3 players take minutes past the quick
    goals (solved in a worker process by the front ends) and are saved to the disk cache.
    """
    key = exact_key(variant, players)  # raises where no exact solver exists
    if use_cache:
        kept = _memory().get(key)
        if kept is not None:
            kept.from_cache = True
            return kept
    policy: ExactPolicy
    if players == 2:
        from pigdice.solve.herd.swineherd_policy import swine_herd_exact

        policy = swine_herd_exact(variant)
    else:
        policy = _herd_group_policy(variant, players, use_cache, progress)
    if use_cache:
        _memory().put(key, policy)
    return policy


def _herd_group_policy(variant: Variant, players: int, use_cache: bool, progress: Progress | None) -> ExactPolicy:
    """Return the 3-player Swine Herd equilibrium from the disk cache, else solved (and saved) here.

    A damaged cache file is removed; past the quick goals this raises BadParameterError rather than start a solve
    of minutes that nobody asked for (the caller solves again on request).
    """
    from pigdice.solve.herd.swineherd_n_policy import SwineHerdNExact, swine_herd_n_exact

    path = exact_cache_path(variant, players)
    if use_cache and path.exists():
        try:
            return SwineHerdNExact.load(path, variant, players)
        except BadParameterError as exc:
            path.unlink(missing_ok=True)
            if variant.goal > HERD_GROUP_QUICK_GOAL:
                raise BadParameterError(f"{exc} (the file is removed: solve again)") from None
    policy = swine_herd_n_exact(variant, players, progress)
    if use_cache:
        try:
            policy.save(path)
        except OSError:
            pass  # a read-only cache only costs a solve next time
    return policy


KERNEL_WARM_GOAL = 4  # the goal of the small solve that loads a solver's kernels


def is_cached(variant: Variant, players: int) -> bool:
    """Return True if the exact policy is in this process's memory or in the disk cache (no solve needed)."""
    if cached_exact(variant, players) is not None:
        return True
    form = _exact_form(variant)
    if solver_kind(form, players) == "swine-herd":
        return players == HERD_GROUP and exact_cache_path(form, players).exists()  # 2 players: in memory only
    if solver_kind(form, players) == "first-to-goal":
        from pigdice.solve.policyfile import cache_path

        return cache_path(form).exists()
    return exact_cache_path(form, players).exists()


def _cache_file(policy: ExactPolicy) -> Path | None:
    """Return where ``policy`` is kept on disk, or None for 2-player Swine Herd (kept in memory only)."""
    form = _exact_form(policy.variant)
    kind = solver_kind(form, policy.players)
    if kind == "swine-herd":
        return exact_cache_path(form, policy.players) if policy.players == HERD_GROUP else None
    if kind == "first-to-goal":
        from pigdice.solve.policyfile import cache_path

        return cache_path(form)
    return exact_cache_path(form, policy.players)


def warm(policy: ExactPolicy) -> None:
    """Ask ``policy`` once what the perfect player asks, so the kernels that answer are compiled (and kept on disk).

    A worker process that solved the policy calls this: the caller then loads those kernels from
    numba's cache in a moment instead of compiling them where Ctrl-C cannot stop it.
    """
    players, goal = policy.players, policy.variant.goal
    positions = [Position((0,) * players), Position((goal // 2,) * players, 1 if policy.variant.can_hold else 0)]
    if policy.variant.endgame is not Endgame.FIRST_TO_GOAL and not policy.variant.is_simultaneous:
        last = players - 1 if policy.variant.endgame is Endgame.EQUAL_TURNS else 0
        positions.append(Position((goal - 2, *(goal,) * (players - 1)), 0, last, ()))
    for position in positions:
        try:
            policy.action_values(position)
            policy.play(position, lambda: 0.5)
            policy.strategy(position)
            policy.win_vector(position)
        except BadParameterError:
            pass  # a position this game cannot be in: the others warm the kernels
    first = policy.first_to_goal()  # the 2-player first-to-goal Policy: what the approximations ask
    if first is not None:
        first.best_choice(0, 0, 0)
        if first.variant.can_hold:
            first.hold_threshold(0, 0)
        else:
            first.dice_values(0, 0)


HANDED_BYTES = 256 * 2**20  # a solved policy larger than this comes back through the disk cache, not the pipe
SAVED_KINDS = (
    "first-to-goal",
    "players",
    "endgame",
    "swine-herd",
)  # the solvers whose policies the caller reads back from a file


@dataclass(frozen=True)
class SavedPolicy:
    """What a worker hands back for a large policy it saved to the disk cache itself: where it is.

    Sent through the pipe, a policy of several GB is pickled whole in the worker and again unpickled
    in the caller: two extra copies beside the two processes' own (4-player Pig to 100 with a final
    round holds 7.6 GB). Saved and read back, the worker has let its copy go before the caller reads.
    """

    path: str


def solve_for_caller(
    variant: Variant, players: int, save_above: int | None, progress: Progress
) -> tuple[ExactPolicy | SavedPolicy, float]:
    """Load the solver's kernels, solve (no cache) and warm the policy; return it and the seconds the kernels took.

    The work of a worker process (``exact_policy_in_worker``): module-level, so it pickles by name. A policy
    of more than ``save_above`` bytes (None: never) is saved to the disk cache here (atomically) and its
    place returned, where its solver has a loader of its own (``SAVED_KINDS``).
    """
    progress(0.0, "getting the solver ready (the first time takes longest)")
    kernels = load_kernels(variant, players)
    policy = exact_policy(variant, players, progress=progress, use_cache=False)
    progress(1.0, "getting the answers ready")
    warm(policy)
    from pigdice.kernelcache import mark_kernels_ready

    mark_kernels_ready(kernel_work(variant, players))  # numba has saved them: the next short solve runs here
    kind = solver_kind(_exact_form(policy.variant), policy.players)
    large = save_above is not None and policy.nbytes > save_above
    path = _cache_file(policy) if large and kind in SAVED_KINDS else None
    if path is not None:
        try:
            policy.save(path)
        except OSError:
            return policy, kernels  # a read-only cache: through the pipe after all
        del policy
        gc.collect()  # its cached rows refer back to it: freed now, before the caller reads the file
        return SavedPolicy(str(path)), kernels
    return policy, kernels


def solve_in_worker(
    variant: Variant,
    players: int = 2,
    progress: Progress | None = None,
    check: Callable[[], None] | None = None,
    use_cache: bool = True,
    handed_bytes: int = HANDED_BYTES,
    short: bool = False,
) -> tuple[ExactPolicy, float]:
    """Solve in a worker process that Ctrl-C (or ``check`` raising) stops at once; keep the policy here.

    A ``short`` solve (the caller's cost model says so: ``cost.is_short``) runs in this process instead,
    without a second Python, once a worker has marked its kernels compiled (``kernelcache.kernels_ready``).
    Returns the policy and the seconds its kernels took to load. The policy is saved
    to the disk cache (atomically: a stopped solve leaves no file) and kept in memory unless
    ``use_cache`` is False; one of more than ``handed_bytes`` is saved by the worker and read back
    here (``SavedPolicy``).
    """
    from pigdice.kernelcache import kernels_ready

    solver_kind(_exact_form(variant), players)  # refuse a game without an exact solver here, at once
    answer: ExactPolicy | SavedPolicy
    if short and kernels_ready(kernel_work(variant, players)):
        answer, kernels = _solve_here(variant, players, progress)
    else:
        from pigdice.solve.background import run_in_worker

        work = (variant, players, handed_bytes if use_cache else None)
        answer, kernels = run_in_worker(solve_for_caller, work, progress, check, remove_partial_files)
    if isinstance(answer, SavedPolicy):
        return _read_saved(answer, variant, players), kernels
    policy = answer
    if use_cache:
        path = _cache_file(policy)
        if path is not None:
            try:
                policy.save(path)
            except OSError:
                pass  # a read-only cache only costs a solve next time
        remember_exact(policy)
    return policy, kernels


def kernel_work(variant: Variant, players: int) -> str:
    """Return what names the kernels solving ``variant`` with ``players`` players uses (the rules, not the goal).

    Built from the rules alone (``exact_key`` would import the endgame solver, and with it numba)."""
    form = _exact_form(variant).with_goal(KERNEL_WARM_GOAL)
    ending = f"{form.endgame}-{form.ties}-{form.final_turn}-{form.sits_at_goal}"
    return f"{form.name}-p{players}-{solver_kind(form, players)}-{form.fingerprint()}-{ending}"


def _solve_here(variant: Variant, players: int, progress: Progress | None) -> tuple[ExactPolicy, float]:
    """Load the solver's kernels and solve (no cache) in this process; return the policy and the kernels' seconds."""
    if progress is not None:
        progress(0.0, "getting the solver ready")
    kernels = load_kernels(variant, players)
    return exact_policy(variant, players, progress=progress, use_cache=False), kernels


def _read_saved(saved: SavedPolicy, variant: Variant, players: int) -> ExactPolicy:
    """Return the policy a worker saved at ``saved.path`` (``SavedPolicy``), kept in memory from now on; the file is
    checked as any cache file is (schema and checksums)."""
    from pigdice.solve.n import nplayer
    from pigdice.solve.two import endgame

    form = _exact_form(variant)
    policy: ExactPolicy
    kind = solver_kind(form, players)
    if kind == "first-to-goal":
        from pigdice.solve.policy import Policy

        policy = FirstToGoalPolicy(Policy.load(Path(saved.path), solvable(form)))
    elif kind == "swine-herd":
        from pigdice.solve.herd.swineherd_n_policy import SwineHerdNExact

        policy = SwineHerdNExact.load(Path(saved.path), form, players)
    elif kind == "endgame":
        policy = endgame.EndgamePolicy.load(Path(saved.path), form)
    else:
        policy = nplayer.PlayersPolicy.load(Path(saved.path), form, players)
    remember_exact(policy)
    return policy


def exact_policy_in_worker(
    variant: Variant,
    players: int = 2,
    progress: Progress | None = None,
    check: Callable[[], None] | None = None,
    use_cache: bool = True,
) -> ExactPolicy:
    """Return the exact policy as ``exact_policy`` does, solving (where nothing is cached) in a worker process
    that Ctrl-C, or ``check`` raising, stops at once."""
    if use_cache and is_cached(variant, players):
        return exact_policy(variant, players, progress, use_cache)
    return solve_in_worker(variant, players, progress, check, use_cache)[0]


def load_kernels(variant: Variant, players: int = 2) -> float:
    """Load (or, on a new machine, compile) the kernels that solving ``variant`` uses; return the seconds.

    The kernels are numba functions cached on disk: the first call in a process loads them, which
    can take longer than a whole solve. Solving the same rules at a tiny goal (nothing cached) loads
    them, so the solve that follows is timed on its own.
    """
    started = time.perf_counter()
    exact_policy(variant.with_goal(min(variant.goal, KERNEL_WARM_GOAL)), players, use_cache=False)
    return time.perf_counter() - started
