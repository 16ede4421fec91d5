"""How the faces of one throw score in each variant (the classifiers the registry uses)."""

from __future__ import annotations

from dataclasses import dataclass

from pigdice.rules.effects import Effect, add, bust, double, reset_score, subtract

# Point values of a single pig position (seed 003, "Pigmania/Pass the Pigs"):
# right sider, left sider, razorback, trotter, snouter, leaning jowler.
PIG_POINTS = (0, 0, 5, 5, 10, 15)


def one_die_pig(faces: tuple[int, ...]) -> Effect:
    """Pig: a 1 loses the turn total, any other face adds its value."""
    (face,) = faces
    return bust() if face == 1 else add(face)


def two_dice_pig(faces: tuple[int, ...]) -> Effect:
    """Two-Dice Pig: 1-1 loses the whole score, a single 1 the turn total, else add the sum."""
    a, b = faces
    if a == 1 and b == 1:
        return reset_score()
    if a == 1 or b == 1:
        return bust()
    return add(a + b)


def two_dice_any_one(faces: tuple[int, ...]) -> Effect:
    """Seed 000's two-dice Pig: any 1 (double 1s included) loses the turn total, else add the sum."""
    a, b = faces
    return bust() if a == 1 or b == 1 else add(a + b)


@dataclass(frozen=True)
class BigPigScoring:
    """Big Pig and its relatives: 1-1 has a special effect, other doubles count double.

    ``bad`` is what ends the turn: "ones" (a single 1, the usual rule) or "sevens" (any roll
    totalling 7, Knizia's variation in seed 000, where 1s are harmless).
    """

    snake_eyes: Effect
    bad: str = "ones"

    def __call__(self, faces: tuple[int, ...]) -> Effect:
        """Score a throw of two dice."""
        a, b = faces
        if a == 1 and b == 1:
            return self.snake_eyes
        if self.bad == "ones" and (a == 1 or b == 1):
            return bust()
        if self.bad == "sevens" and a + b == 7:
            return bust()
        if a == b:
            return add(4 * a)  # twice the dice sum (seed 003: P_{i,j,k+4d1})
        return add(a + b)


def pig_dice(faces: tuple[int, ...]) -> Effect:
    """Parker Brothers Pig Dice (seed 003's equation): head die face 1 = H, tail die face 6 = T."""
    head, tail = faces
    if head == 1 and tail == 6:
        return double()
    if head == 1:
        return add(2 * tail)
    if tail == 6:
        return subtract(head)
    if head + tail == 7:
        return bust()
    return add(head + tail)


def piggy(faces: tuple[int, ...]) -> Effect:
    """Piggy: doubles lose the turn total, else add the sum."""
    a, b = faces
    return bust() if a == b else add(a + b)


def piggy_sevens(faces: tuple[int, ...]) -> Effect:
    """Piggy Sevens: a total of 7 loses the turn total, else add the sum."""
    a, b = faces
    return bust() if a + b == 7 else add(a + b)


def piggy_six(faces: tuple[int, ...]) -> Effect:
    """Piggy Six (seed 004): any 6 loses the turn total; two or more 6s reset the score."""
    sixes = faces.count(6)
    if sixes >= 2:
        return reset_score()
    if sixes == 1:
        return bust()
    return add(sum(faces))


def pass_the_pigs(faces: tuple[int, ...]) -> Effect:
    """Pass the Pigs: a left and a right sider pig out; a matching pair scores 1 or four times one pig.

    Seed 003 prints the pair rule as "d1 = d2 <= 2 -> +1", which would make a double
    razorback worth 1; the game (and the published values, see tests/reference) give a
    double razorback 20, so siders (0, 1) score 1 as a pair and every other pair 4 x points.
    """
    a, b = faces
    if a + b == 1:
        return bust()
    if a == b:
        return add(1) if a <= 1 else add(4 * PIG_POINTS[a])
    return add(PIG_POINTS[a] + PIG_POINTS[b])
