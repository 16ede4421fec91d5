"""Player-facing words: rules, menus and help speak a player's language (issue 12, item 5).

No command-line flags, parameter names, source file ids or raw enum values in what players read:
the rules of every variant (its lines, the terminal's ``pigdice rules`` and the web rules pages),
``pigdice variants``, the home page's menus and ``--help``; and ``simulate --json`` labels its
wins by player.
"""

from __future__ import annotations

import html
import inspect
import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pigdice.cli.app import COMMANDS, app
from pigdice.rules import Decision, Endgame, FinalTurn, TieRule, all_variants, variant_names
from pigdice.rules.registry import MAX_HOG_DICE, REGISTRY, SETTINGS, variant_settings
from pigdice.rules.sources import SOURCES, find_source, mention
from pigdice.rules.variant import Variant

runner = CliRunner()

FLAG = re.compile(r"(?<![\w-])--[a-z]")
SOURCE_ID = re.compile(r"\b00[0-4]_[0-9a-f]{6}|\b[Ss]eeds? 00[0-4]")
# the values of the choices that have a dash (the others, 'shared', 'turn', 'roll', are plain words)
RAW_VALUES = sorted(
    member.value for enum in (Decision, Endgame, TieRule, FinalTurn) for member in enum if "-" in member.value
)
PARAMETER = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z_]+=\S")  # snake_eyes, max_dice, oinker=0.01


def problems(text: str) -> list[str]:
    """Return what in ``text`` a player should not read: flags, source ids, raw values, parameter names."""
    found = [match.group() for pattern in (FLAG, SOURCE_ID, PARAMETER) for match in pattern.finditer(text)]
    return found + [value for value in RAW_VALUES if value in text]


def test_the_checker_catches_the_old_wording() -> None:
    old = (
        "Seed 000 suggests finishing the round so everyone has equal turns: play it with --endgame equal-turns. "
        "(Frey's Pig, seed 003) 003_93a05962de4ba912 parameters snake_eyes=bank-25, bad=ones"
    )
    assert set(problems(old)) >= {"Seed 000", "--e", "equal-turns", "seed 003", "003_93a059", "snake_eyes"}
    assert problems("Neller & Presser, Pigtail: A Pig Addendum (2005); 1-1 adds 25; pig-out") == []


# -- the rules layer ---------------------------------------------------------------------------
def variant_texts(variant: Variant) -> list[str]:
    """Return every text a player reads about a variant, from the rules layer."""
    texts = [variant.title, variant.summary, *variant.rules, variant.endgame_note()]
    texts += [f"{setting.label}: {setting.words(value)}" for setting, value in variant_settings(variant)]
    return texts + [f"{find_source(s).citation} {find_source(s).about}" for s in variant.sources]


@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.name)
def test_rules_texts_speak_words(variant: Variant) -> None:
    for text in variant_texts(variant):
        assert not problems(text), (text, problems(text))


def test_every_choice_has_a_label_in_words() -> None:
    for enum in (Decision, Endgame, TieRule, FinalTurn):
        for member in enum:
            assert member.label and member.label != member.value and not problems(member.label), member
    assert Endgame.FIRST_TO_GOAL.label == "first to the goal wins"
    assert TieRule.SHARED.label == "ties are shared"
    assert FinalTurn.ROLL.label == "one more roll"


def test_sources_are_cited_by_title_and_author() -> None:
    assert len(SOURCES) == 5
    assert find_source("003_93a05962de4ba912").citation == "Neller & Presser, Pigtail: A Pig Addendum (2005)"
    assert find_source("002_9b8368f1fcb432e9").citation == "Dice Game Depot, Pig Dice Game Rules (2014)"
    assert mention("000_b0cf75e716d5116f", "003_93a05962de4ba912", first=True) == (
        "The Pig overview page and Neller & Presser's Pigtail (2005)"
    )
    for variant in all_variants():
        assert all(source in SOURCES for source in variant.sources), variant.name


def test_settings_cover_exactly_the_parameters_a_player_may_change() -> None:
    assert set(SETTINGS) <= set(REGISTRY)
    for variant in all_variants():
        entry = REGISTRY[variant.name]
        changeable = set(inspect.signature(entry.factory).parameters)
        changeable -= {"name", "title", "aliases", "final_turn"}  # not parameters (final_turn has its own option)
        assert {setting.key for setting, _ in variant_settings(variant)} == changeable, variant.name
        for setting, value in variant_settings(variant):
            assert value is not None and setting.words(value), (variant.name, setting.key)
            if setting.choices:  # every value the variant accepts has words, and only those
                for choice, _ in setting.choices:
                    REGISTRY[variant.name].build(**{setting.key: choice})


# -- the terminal: pigdice rules, pigdice variants, --help -----------------------------------------
def run(*args: str) -> str:
    """Run a command on a wide terminal (so no flag is split by wrapping) and return its output."""
    result = runner.invoke(app, list(args), env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name", variant_names())
def test_pigdice_rules_speaks_words(name: str) -> None:
    text = run("rules", name)
    # the variant's own name in brackets after its title is how `pigdice play NAME` finds it
    assert not problems(text), problems(text)
    if REGISTRY[name].build().sources == (find_source("003_93a05962de4ba912").id,):
        assert "Neller & Presser, Pigtail: A Pig Addendum (2005)" in text


def test_pigdice_rules_reads_settings_as_words() -> None:
    text = run("rules", "freys-pig")
    assert "ties go to whoever reached the score first" in text and "Neller & Presser's Pigtail (2005)" in text
    big = run("rules", "big-pig", "--param", "snake_eyes=bank-25")
    assert "Double 1s: bank the turn total plus 25 and end the turn" in big
    assert "What ends the turn: a single 1" in big
    pigs = run("rules", "pass-the-pigs", "--param", "oinker=1/100")
    assert "Chance that the pigs touch (an oinker): 1%" in pigs


def test_pigdice_variants_speaks_words() -> None:
    text = run("variants")
    assert "roll again or hold" in text and "a final round for everyone else" in text
    assert "Neller & Presser's Pigtail (2005)" in text
    assert not problems(text.replace("pigdice rules NAME", "").replace("pigdice play NAME", "")), problems(text)


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_has_no_type_placeholders(command: str | None) -> None:
    text = run(*([command] if command else []), "--help")
    assert not re.search(r"<(bool|str|int|float|path|list\[[a-z]+\])>", text), text
    assert "[[" not in text


def test_help_names_what_options_take() -> None:
    text = run("simulate", "--help")
    assert re.search(r"--players\s+ROBOTS", text) and re.search(r"--endgame\s+ENDING", text)
    assert re.search(r"--param\s+-p\s+KEY=VALUE", text)
    assert re.search(r"--json\s+Print JSON", text)  # a flag shows no placeholder


# -- simulate --json ---------------------------------------------------------------------------
def test_simulate_json_wins_are_integers_labelled_by_player() -> None:
    args = ["simulate", "pig", "--players", "hold:20,hold:25,rolls:2", "--games", "30", "--seed", "4", "--goal", "20"]
    data = json.loads(run(*args, "--json"))
    assert all(type(wins) is int for wins in data["wins"]), data
    assert sum(data["wins"]) == 30 and data["seed"] == 4
    assert [(p["seat"], p["player"]) for p in data["players"]] == [(1, "hold:20"), (2, "hold:25"), (3, "rolls:2")]
    for player, wins in zip(data["players"], data["wins"], strict=True):
        assert type(player["wins"]) is int and player["wins"] == wins
        assert player["win_rate"] == pytest.approx(wins / 30)


def test_simulate_json_counts_shared_victories_as_whole_games() -> None:
    # Swine Herd: players who reach the goal on the same shared roll share the victory
    args = ["simulate", "swine-herd", "--players", "hold:10,hold:20,hold:15", "--games", "200", "--seed", "1"]
    data = json.loads(run(*args, "--json"))
    assert data["ties"] > 0
    for player, wins in zip(data["players"], data["wins"], strict=True):
        assert type(player["outright_wins"]) is int and type(player["shared_wins"]) is int
        assert player["outright_wins"] <= wins <= player["outright_wins"] + player["shared_wins"]
    assert sum(p["outright_wins"] for p in data["players"]) + data["ties"] == data["games"]


# -- the web pages -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Return a TestClient of the web app on a fresh database."""
    pytest.importorskip("fastapi", reason="the web extra is not installed (pip install pigdice[web])")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from pigdice.web.app import create_app
    from pigdice.web.config import Settings

    path: Path = tmp_path_factory.mktemp("wording")
    settings = Settings(database_url=f"sqlite:///{path / 'games.sqlite3'}", robot_delay=0.0, warm_solver=False)
    with TestClient(create_app(settings)) as client:
        yield client


def visible_text(page: str) -> str:
    """Return the words a browser shows of an HTML page (no scripts, tags or attribute values)."""
    page = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.mark.parametrize("name", [None, *variant_names()])
def test_web_rules_pages_speak_words(web: Any, name: str | None) -> None:
    reply = web.get("/rules" if name is None else f"/rules/{name}")
    assert reply.status_code == 200
    text = visible_text(reply.text)
    assert not problems(text), problems(text)
    if name == "pig":
        assert "Neller & Presser, Pigtail: A Pig Addendum (2005)" in text
        assert "Roll again or hold" in text and "First to 100 wins" in text
    if name == "hog":
        assert "Most dice in one throw" in text and "26" in text


def test_home_menus_show_words_and_send_the_values(web: Any) -> None:
    page = web.get("/").text
    for member in (*Endgame, *TieRule, *FinalTurn):
        label = member.label[0].upper() + member.label[1:]
        assert f'<option value="{member.value}">{html.escape(label)}</option>' in page, member
    assert "key=value" not in page and "max_dice=10" not in page
    found = re.search(r'id="settings-data">(.*?)</script>', page, re.S)
    assert found is not None
    settings = json.loads(found.group(1))
    hog = {"key": "max_dice", "label": "Most dice in one throw", "kind": "count", "value": 26}
    assert settings["hog"] == [{**hog, "low": 1, "high": MAX_HOG_DICE}]
    assert [c[0] for c in settings["big-pig"][0]["choices"]][:2] == ["add-25", "set-25"]
    # the menus (the robot kinds' help is the players layer's: pigdice.players.specs)
    text = visible_text(re.sub(r'<details class="spec-help">.*?</details>', " ", page, flags=re.S))
    assert not problems(text), problems(text)


# -- no source ids anywhere a user reads (issue 25) ------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "src" / "pigdice" / "web" / "static"


def source_ids(text: str) -> list[str]:
    """Return every internal source id ('seed 003', '003_93a0...') in ``text``."""
    return [match.group() for match in SOURCE_ID.finditer(text)] + re.findall(r"(?i)seeds? 00\d", text)


def test_the_source_id_check_catches_them() -> None:
    assert source_ids("as seed 003 does; Seeds 000, 001; 004_0a71800ce86c16ce") == [
        "seed 003",
        "Seeds 000",
        "004_0a7180",
        "seed 003",
        "Seeds 000",
    ]
    assert source_ids("seed 3 rolls the same dice; Neller & Presser's Pigtail (2005)") == []


def test_no_source_ids_in_any_page_the_web_app_serves(web: Any) -> None:
    paths = ["/", "/rules", "/explore", *(f"/rules/{name}" for name in variant_names())]
    paths += [f"/explore?variant={name}" for name in ("pig", "hog", "swine-herd")]
    paths += [f"/static/{file.name}" for file in sorted(STATIC.iterdir()) if file.suffix in (".js", ".css", ".html")]
    for path in paths:
        reply = web.get(path)
        assert reply.status_code == 200, path
        assert not source_ids(reply.text), (path, source_ids(reply.text))


def test_a_robot_seat_says_what_it_does(web: Any) -> None:
    reply = web.post("/api/games", json={"variant": "pig", "goal": 20, "players": ["you", "hold:20", "optimal"]})
    assert reply.status_code == 201, reply.text
    seats = web.get(f"/api/games/{reply.json()['code']}").json()["state"]["seats"]
    assert [(s["name"], s["about"]) for s in seats] == [
        ("Player 1", ""),  # a person's seat: their chosen name, else its number
        ("Wilbur", "holds at 20"),
        ("Babe", "the perfect player"),
    ]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_no_source_ids_in_help(command: str | None) -> None:
    text = run(*([command] if command else []), "--help")
    assert not source_ids(text), source_ids(text)


def test_no_source_ids_in_rules_and_variants() -> None:
    texts = [run("variants"), run("variants", "--json")]
    texts += [run("rules", name) + run("rules", name, "--json") for name in variant_names()]
    for text in texts:
        assert not source_ids(text), source_ids(text)


@pytest.mark.slow  # analyses every variant: 6 s warm
def test_no_source_ids_in_analyze_output(tmp_path: Path) -> None:
    texts = [run("analyze", "freys-pig", "--goal", "20"), run("analyze", "pig", "--goal", "20", "--json")]
    texts += [run("analyze", "pig,hog", "--goal", "20"), run("analyze", "pig,hog", "--goal", "20", "--format", "md")]
    for fmt in ("html", "md"):
        run("analyze", "freys-pig", "--goal", "20", "--out", str(tmp_path / f"report.{fmt}"))
        texts.append((tmp_path / f"report.{fmt}").read_text(encoding="utf-8"))
    texts += [run("analyze", "pig", "--goal", "20", "--questions", "--players", "2", "--json")]
    for text in texts:
        assert not source_ids(text), source_ids(text)
    assert "Neller & Presser, Pigtail: A Pig Addendum (2005)" in texts[-1]  # the questions' source, by title


def test_no_source_ids_in_readme_or_docs() -> None:
    files = [ROOT / "README.md", ROOT / "mkdocs.yml", ROOT / "CITATION.cff", *sorted((ROOT / "docs").rglob("*.md"))]
    assert len(files) > 10
    for file in files:
        found = source_ids(file.read_text(encoding="utf-8"))
        assert not found, (file.name, found)


# -- the variants' sources, a retired name ---------------------------------------------------------
@pytest.mark.parametrize("columns", ["80", "200"])
def test_variants_prints_every_variants_sources_at_any_width(columns: str) -> None:
    result = runner.invoke(app, ["variants"], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "sources" in text
    for variant in all_variants():
        assert variant.name in text
        for source in variant.sources:
            assert " ".join(find_source(source).short.split()) in text, (columns, variant.name, source)


def test_a_retired_variant_name_is_found_but_never_shown() -> None:
    from pigdice.engine.record import SeatEntry, parse_record, record_game
    from pigdice.rules import find_variant
    from pigdice.rules.registry import RETIRED_NAMES

    assert find_variant("big-pig-002").name == "big-pig-score-25" and find_variant("Hog 002").name == "hog-reroll"
    for variant in all_variants():
        assert not set(variant.aliases) & set(RETIRED_NAMES), variant.name
    assert not set(RETIRED_NAMES) & set(run("variants", "--json").split('"'))
    # a game recorded under the old name still loads and replays
    record = record_game(find_variant("big-pig-score-25"), [SeatEntry("A", "hold:20", "robot")] * 2, 5, [])
    old = json.dumps({**record.to_json(), "variant": "big-pig-002"})
    assert parse_record(old).build_variant().name == "big-pig-score-25"


def test_a_record_of_every_named_variant_loads() -> None:
    from pigdice.engine.record import SeatEntry, parse_record, record_game
    from pigdice.errors import BadParameterError
    from pigdice.rules import find_variant

    seats = [SeatEntry("A", "hold:20", "robot"), SeatEntry("B", "hold:20", "robot")]
    for variant in all_variants():  # a record keeps every parameter, also those a named reading fixes
        record = record_game(variant, seats, 5, [])
        assert parse_record(json.dumps(record.to_json())).build_variant() == variant, variant.name
    with pytest.raises(BadParameterError, match="big-pig-knizia has no parameter 'snake_eyes'"):
        find_variant("big-pig-knizia", snake_eyes="add-25")  # another reading is another variant


# -- robots in words -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("optimal", "the perfect player"),
        ("hold:20", "holds at 20"),
        ("HOLD:8", "holds at 8"),
        ("hold:25+dice:3", "holds at 25, throwing 3 dice"),
        ("hold:20+dice:1", "holds at 20, throwing 1 die"),
        ("rolls:1", "rolls once a turn"),
        ("rolls:2", "rolls twice a turn"),
        ("rolls:4+dice:2", "rolls 4 times a turn, throwing 2 dice"),
        ("dice:5", "throws 5 dice"),
        ("dice:1", "throws 1 die"),
        ("random", "plays at random"),
        ("keep-pace", "keeps pace and ends the race"),
        ("max-score", "rolls while a roll gains on average"),
        ("py:mine.py:cautious", "your function cautious"),
        ("python:strategies.mine:bold", "your function bold"),
        ("something-new", "something-new"),  # a spec this module does not know speaks for itself
    ],
)
def test_every_robot_is_described_in_words(spec: str, words: str) -> None:
    from pigdice.players.defaults import describe_robot, robot_title

    assert describe_robot(spec) == words
    assert robot_title("Hilda", spec) == f"Hilda, {words}"


def test_every_robot_a_player_can_name_has_words() -> None:
    from pigdice.players.defaults import describe_robot
    from pigdice.players.specs import parse_strategy
    from pigdice.rules import find_variant

    pig, hog = find_variant("pig"), find_variant("hog")
    for spec, variant in [("hold:20", pig), ("rolls:3", pig), ("random", pig), ("keep-pace", pig)]:
        name = parse_strategy(spec, variant).name  # what a front end holds: the strategy's own name
        assert describe_robot(name) != name, spec
    assert describe_robot(parse_strategy("dice:6", hog).name) == "throws 6 dice"
    assert describe_robot(parse_strategy("max-score", pig).name) != "max-score"


def test_the_terminal_names_robots_and_says_what_they_do() -> None:
    import io

    from rich.console import Console

    from pigdice.players.specs import parse_players
    from pigdice.rules import find_variant
    from pigdice.terminal.game import TerminalGame

    variant = find_variant("pig")
    console = Console(file=io.StringIO(), width=200, color_system=None)
    game = TerminalGame(variant, parse_players("you,hold:20,rolls:2", variant), 1, console=console)
    game.header()
    board = game.scoreboard().plain
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Players: You · Wilbur, holds at 20 · Babe, rolls twice a turn" in text
    assert "Wilbur 0 (holds at 20)" in board and "Babe 0 (rolls twice a turn)" in board
    assert "hold:20" not in text + board
