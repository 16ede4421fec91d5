"""The five documents the variants are built from, cited the way a player reads them.

A variant lists its sources by id (``Variant.sources``); everything a player sees names them
through this module: ``find_source(id).citation`` for a list of sources and ``.short`` inside
a sentence. The texts themselves are in the project's seed folder (see its README).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One source document: who wrote it, what it is called, and what it covers."""

    id: str  # the document's file id, e.g. "003_93a05962de4ba912"
    title: str
    author: str  # who wrote or published it ("" when the document is unsigned)
    year: int | None  # None when the document carries no date
    medium: str  # what kind of document it is: "journal article", "poster", ...
    short: str  # how a sentence names it: "Neller & Presser's Pigtail (2005)"
    about: str  # what it covers, for a list of sources

    @property
    def citation(self) -> str:
        """Return 'Neller & Presser, Pigtail: A Pig Addendum (2005)'; an undated document gives its medium."""
        head = f"{self.author}, {self.title}" if self.author else self.title
        return f"{head} ({self.year if self.year is not None else self.medium})"


OVERVIEW = Source(
    id="000_b0cf75e716d5116f",
    title="Pig",
    author="",
    year=None,
    medium="unsigned web page on the game and its variations",
    short="the Pig overview page",
    about=(
        "An overview of Pig and its variations: Big Pig (with Reiner Knizia's and others' rules for double 1s), "
        "Piggy, Parker Brothers' Pig Dice, the fair final round, and the strategy literature."
    ),
)
POSTER = Source(
    id="001_85c5e0c6adcb633d",
    title="The Game of Pig",
    author="Gettysburg College Computer Science",
    year=None,
    medium="poster",
    short="the Gettysburg College poster",
    about=(
        "Pig, Two-Dice Pig, Big Pig and Todd Neller's group game Swine Herd; it invites you to play a perfect "
        "computer player and to see its strategy in 3D."
    ),
)
DEPOT = Source(
    id="002_9b8368f1fcb432e9",
    title="Pig Dice Game Rules",
    author="Dice Game Depot",
    year=2014,
    medium="rules web page",
    short="Dice Game Depot",
    about="Pig, Two-Dice Pig, Big Pig, and Hog, where you choose up to an agreed number of dice on each roll.",
)
PIGTAIL = Source(
    id="003_93a05962de4ba912",
    title="Pigtail: A Pig Addendum",
    author="Neller & Presser",
    year=2005,
    medium="journal article",
    short="Neller & Presser's Pigtail (2005)",
    about=(
        "Todd W. Neller and Clifton G.M. Presser, The UMAP Journal 26.4: optimal play for Pig, Two-Dice Pig, "
        "Big Pig, Frey's Pig, Piggy, Piggy Sevens, Parker Brothers' Pig Dice, Pass the Pigs and Hog, and open "
        "questions (other endings, three or more players)."
    ),
)
PIGGY_SIX = Source(
    id="004_0a71800ce86c16ce",
    title="Piggy Six: A Simple Dice Game",
    author="",
    year=None,
    medium="personal web page",
    short="the Piggy Six page",
    about=(
        "Six is bad and double six is worse; rules for large groups with two sets of dice, solitaire against "
        "imaginary opponents who stop at fixed totals, three dice, and online play against robots with a fair "
        "dice roller."
    ),
)

SOURCES: dict[str, Source] = {source.id: source for source in (OVERVIEW, POSTER, DEPOT, PIGTAIL, PIGGY_SIX)}


def find_source(source_id: str) -> Source:
    """Return the source document with this id (an unknown id gets a neutral stand-in)."""
    found = SOURCES.get(source_id)
    if found is not None:
        return found
    return Source(source_id, "a source document", "", None, "document", "a source document", "")


def mention(*source_ids: str, first: bool = False) -> str:
    """Return the sources' short names as words: 'the Pig overview page and Neller & Presser's Pigtail (2005)'.

    ``first=True`` capitalises the first letter, for the start of a sentence.
    """
    names = [find_source(source_id).short for source_id in source_ids]
    text = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
    return text[:1].upper() + text[1:] if first else text
