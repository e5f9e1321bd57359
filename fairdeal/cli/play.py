"""`fairdeal play` (an evening of preferans with bots, or a person at one seat) and `fairdeal sheet LOG` (the pulya
recomputed from a game log)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fairdeal.cards import DeckKind
from fairdeal.cli.human import TerminalPlayer
from fairdeal.cli.options import players_option, system_option
from fairdeal.engine.bots import Bot
from fairdeal.engine.deal_source import DealSource, ShuffledDeckSource
from fairdeal.engine.match import HandSummary, MatchResult, play_match
from fairdeal.engine.recount import LogSheet, sheet_from_log
from fairdeal.engine.sheet import Sheet
from fairdeal.engine.sheet_view import amount_text, settlement_table, sheet_json, sheet_table
from fairdeal.errors import ConventionError, FairdealError, one_line
from fairdeal.files import OutputFile
from fairdeal.rules import parse_rule
from fairdeal.rules.convention import Convention
from fairdeal.systems import BOT_KINDS, rebuild_convention, system_of

DEFAULT_NAMES = ("Anna", "Boris", "Vera", "Gleb", "Dasha")


class CommandFailure(click.ClickException):
    """A user error met after the options were read (unreadable log, a table that cannot be played)."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))  # it may quote the log (a header's system name): one short line


@click.command("play")
@system_option
@players_option
@click.option(
    "--hands",
    "max_hands",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after N hands even if the pulya is not closed (it is settled as it stands).",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed for the deals and bots (default: random).")
@click.option(
    "--bots",
    "bot_kind",
    type=click.Choice(BOT_KINDS),
    default="heuristic",
    show_default=True,
    help="How the bots play: easy is the heuristic; medium and hard play by double-dummy sampling.",
)
@click.option(
    "--pulya",
    "pulya_size",
    type=click.IntRange(min=1),
    default=None,
    help="The agreed pulya (default: the convention's).",
)
@click.option("--names", default=None, help="Player names, comma-separated, clockwise from seat 0.")
@click.option(
    "--rule",
    "rules",
    multiple=True,
    metavar="GROUP.FIELD=VALUE",
    help="A house rule: any convention parameter as named in docs/conventions.md, e.g. "
    "raspasy.price_per_trick=2 (repeatable); the log header carries it.",
)
@click.option("--human", "human_seat", type=int, default=None, help="Play this seat yourself (0-based).")
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the game log (JSON Lines) here, hand by hand; it appears complete when the pulya ends.",
)
@click.option("--force", is_flag=True, help="Replace the --out file if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def play_command(
    system: str,
    num_players: int | None,
    max_hands: int | None,
    seed: int | None,
    bot_kind: str,
    pulya_size: int | None,
    names: str | None,
    rules: tuple[str, ...],
    human_seat: int | None,
    out: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Play a pulya with bots (or take a seat with --human) and print the sheet and the settlement."""
    convention = table_convention(system, rules, pulya_size)
    num_players = default_players(convention) if num_players is None else num_players
    check_players(convention, num_players)
    players = player_names(names, num_players)
    if human_seat is not None and not 0 <= human_seat < num_players:
        raise click.BadParameter(
            f"seat {human_seat} is not at a table of {num_players} (0..{num_players - 1})", param_hint="--human"
        )
    if human_seat is not None and as_json:
        raise click.BadParameter(
            "cannot be combined with --human (the game talks to you on stdout)", param_hint="--json"
        )
    seed = secrets.randbelow(2**32) if seed is None else seed
    deal_seed, *bot_seeds = np.random.SeedSequence(seed).spawn(num_players + 1)
    bots: list[Bot] = [system_of(convention).make_bot(bot_kind, s) for s in bot_seeds]
    if human_seat is not None:
        bots[human_seat] = TerminalPlayer(players)
    source = ShuffledDeckSource(deck=DeckKind.parse(convention.table.deck), rng=np.random.default_rng(deal_seed))
    log = OutputFile(out, force) if out is not None else None
    try:
        result = _run(convention, players, bots, source, max_hands, log, human_seat is not None)
    except FairdealError as exc:
        raise CommandFailure(str(exc)) from None
    finally:
        if log is not None:
            log.abort()  # a no-op once the match has put the log in place
    if as_json:
        click.echo(json.dumps(play_json(result, seed, out), ensure_ascii=False))
    else:
        _print_play(result, seed, out)


def table_convention(system: str, rules: Sequence[str], pulya_size: int | None) -> Convention:
    """The system with the ``--rule`` house rules and the agreed ``--pulya``; one clear error for a bad rule."""
    try:
        overrides = dict(parse_rule(text) for text in rules)
        return rebuild_convention(system, overrides, pulya_size)
    except ConventionError as exc:
        raise click.BadParameter(str(exc), param_hint="--rule") from None


def default_players(convention: Convention) -> int:
    """Three where the system is played by three («Настоящая же игра в преферанс — втроём», 003, rule 5), else
    its smallest table."""
    return 3 if 3 in convention.players else convention.players[0]


def check_players(convention: Convention, num_players: int) -> None:
    if num_players not in convention.players:
        allowed = " or ".join(str(n) for n in convention.players)
        raise click.BadParameter(
            f"{convention.name} is played by {allowed} players, not {num_players}", param_hint="--players"
        )


def player_names(names: str | None, num_players: int) -> list[str]:
    """``--names`` (comma-separated, clockwise from seat 0), or the default names."""
    if names is None:
        return list(DEFAULT_NAMES[:num_players])
    listed = [n.strip() for n in names.split(",")]
    if len(listed) != num_players or not all(listed) or len(set(listed)) != num_players:
        raise click.BadParameter(f"give {num_players} distinct non-empty names, got {names!r}", param_hint="--names")
    return listed


def _run(
    convention: Convention,
    players: list[str],
    bots: list[Bot],
    source: DealSource,
    max_hands: int | None,
    out: OutputFile | None,
    human: bool,
) -> MatchResult:
    if human:
        return play_match(
            convention,
            players,
            bots,
            source=source,
            max_hands=max_hands,
            log=out,
            on_hand=lambda summary, sheet: click.echo(_hand_line(summary, players, sheet)),
        )
    console = Console(stderr=True)
    if not console.is_terminal:
        return play_match(convention, players, bots, source=source, max_hands=max_hands, log=out)
    target = max_hands or convention.pulya.size * len(players)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("hands played" if max_hands else "pulya written", total=target)

        def advance(summary: HandSummary, sheet: Sheet) -> None:
            done = summary.number if max_hands else sum(min(p, Fraction(convention.pulya.size)) for p in sheet.pulya)
            progress.update(task, completed=int(done))

        return play_match(convention, players, bots, source=source, max_hands=max_hands, log=out, on_hand=advance)


def _hand_line(summary: HandSummary, players: list[str], sheet: Sheet) -> str:
    if summary.declarer is None:
        what = summary.kind.value
    else:
        verdict = "went down" if summary.failed else "made it"
        what = f"{players[summary.declarer]} played {summary.contract} and {verdict}"
    pulya = ", ".join(f"{name} {amount_text(p)}" for name, p in zip(players, sheet.pulya))
    return f"hand {summary.number} (dealer {players[summary.dealer]}): {what}; пуля: {pulya}"


def _ending(finished: bool, stopped: str | None, hands: int) -> str:
    if finished:
        return f"the pulya is closed after {hands} hands"
    return f"the pulya was not finished ({stopped or 'the log ends'}, {hands} hands); it is settled as it stands"


def play_json(result: MatchResult, seed: int | None, out: Path | None) -> dict[str, Any]:
    """The evening as `--json` prints it: system, pulya, seed, how it ended, the sheet and the settlement."""
    data = {
        "system": result.convention.name,
        "pulya": result.convention.pulya.size,
        "seed": seed,
        "finished": result.finished,
        "stopped": result.stopped,
    }
    data.update(sheet_json(result.sheet, result.settlement, result.players, result.convention))
    if out is not None:
        data["log"] = str(out)
    return data


def _print_play(result: MatchResult, seed: int, out: Path | None) -> None:
    console = Console()
    click.echo(
        f"{result.convention.title}, {len(result.players)} players, pulya {result.convention.pulya.size}, "
        f"seed {seed}: {_ending(result.finished, result.stopped, len(result.hands))}"
    )
    console.print(sheet_table(result.sheet, result.players, result.convention))
    console.print(settlement_table(result.settlement, result.players))
    if out is not None:
        click.echo(f"game log: {out}")


@click.command("sheet")
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON: the sheet, the settlement and any mismatches.")
def sheet_command(log: Path, as_json: bool) -> None:
    """Recompute the pulya sheet and settlement from a game log, replaying every hand through the engine.

    Exit code 1 when the logged score lines (or settlement) differ from the recomputation."""
    try:
        recount = sheet_from_log(log)
    except FairdealError as exc:
        raise CommandFailure(str(exc)) from None
    if as_json:
        click.echo(json.dumps(_sheet_json(recount), ensure_ascii=False))
    else:
        _print_sheet(recount, log)
    if recount.problems:
        raise SystemExit(1)


def _sheet_json(recount: LogSheet) -> dict[str, Any]:
    data = {"system": recount.convention.name, "pulya": recount.convention.pulya.size, "finished": recount.finished}
    data.update(sheet_json(recount.sheet, recount.settlement, recount.players, recount.convention))
    data["mismatches"] = list(recount.problems)
    return data


def _print_sheet(recount: LogSheet, log: Path) -> None:
    console = Console()
    click.echo(
        f"{log}: {recount.convention.title}, {len(recount.players)} players, pulya "
        f"{recount.convention.pulya.size}: {_ending(recount.finished, None, recount.hands)}"
    )
    console.print(sheet_table(recount.sheet, recount.players, recount.convention))
    console.print(settlement_table(recount.settlement, recount.players))
    for problem in recount.problems:
        click.echo(f"mismatch: {problem}")
    click.echo(f"{len(recount.problems)} mismatches" if recount.problems else "every logged score line matches")


COMMANDS = [play_command, sheet_command]
