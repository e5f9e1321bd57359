"""`fairdeal deal` (an evening dealt by commit-reveal or mental poker) and `fairdeal verify` (re-check transcripts)."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from fairdeal.cli.options import players_option, system_option
from fairdeal.errors import FairdealError, one_line
from fairdeal.files import require_empty_folder
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4
from fairdeal.protocols.pins import Pins
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import verify_log, verify_paths
from fairdeal.protocols.workers import default_workers

if TYPE_CHECKING:
    from fairdeal.protocols.identity import IdentityKey
    from fairdeal.protocols.mental_poker.source import MentalPokerSource

LOG_NAME = "evening.log"


@click.command("verify")
@click.argument("transcripts", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A game log: verify every transcript it cites, and the citations.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable report.")
@click.option("--no-replay", is_flag=True, help="Check the deal only, not the game record.")
@click.option(
    "--roster",
    "roster_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Pin identities: the signed roster (v4) the transcripts must have been played under.",
)
@click.option(
    "--key",
    "keys",
    multiple=True,
    metavar="SEAT=PUBKEY",
    help="Pin one identity: a seat number, player name or 'service', and its public key (repeatable).",
)
@click.option(
    "--me",
    "me_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="My identity key file: check that my seat, my seed and my countersignature are in every hand.",
)
@click.option(
    "--beacon",
    metavar="HEX",
    default=None,
    help="Pin the public beacon value (64 hex digits) every commit-reveal hand must mix in.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Processes that read and check a long run of transcript files (default: the machine's cores).",
)
def verify_command(
    transcripts: tuple[Path, ...],
    log_path: Path | None,
    as_json: bool,
    no_replay: bool,
    roster_path: Path | None,
    keys: tuple[str, ...],
    me_path: Path | None,
    beacon: str | None,
    workers: int | None,
) -> None:
    """Re-check hand transcripts: commitments, chain, deck, deal and the game record. Exit 0 only if all hold."""
    if bool(transcripts) == (log_path is not None):
        raise click.UsageError("give transcript files or --log LOG (one of the two)")
    try:
        pins = replace(_pins(roster_path, keys, me_path), beacon=beacon_bytes(beacon))
    except FairdealError as exc:
        raise click.UsageError(str(exc)) from None
    processes = default_workers() if workers is None else workers
    if log_path is not None:
        report = verify_log(log_path, replay_records=not no_replay, pins=pins, workers=processes)
    else:
        report = verify_paths(list(transcripts), replay_records=not no_replay, pins=pins, workers=processes)
    if as_json:
        click.echo(json.dumps(_shortened(report.to_json()), ensure_ascii=False, indent=1))
    else:
        for failure in report.failures:
            click.echo(one_line(failure.line()))  # a failure may quote the transcript: one short line
        for note in report.notes:
            click.echo(f"note: {one_line(note)}", err=True)
        if report.ok:
            click.echo(f"ok: {report.transcripts} transcript(s) verified")
        for caveat in report.caveats:
            click.echo(f"caveat: {caveat}")
    sys.exit(0 if report.ok else 1)


def _pins(roster_path: Path | None, keys: Sequence[str], me_path: Path | None) -> Pins:
    from fairdeal.protocols.identity import IdentityKey, PublicKey
    from fairdeal.protocols.roster import Roster

    pinned = []
    for text in keys:
        who, _, key = text.partition("=")
        if not who or not key:
            raise FairdealError(f"--key {text!r}: write SEAT=PUBKEY (a seat number, name or 'service')")
        pinned.append((who, PublicKey.from_hex(key, f"--key {who}")))
    roster = Roster.load(roster_path) if roster_path is not None else None
    if roster is not None:
        roster.check()
    me = IdentityKey.load(me_path) if me_path is not None else None
    return Pins(roster, tuple(pinned), me)


def beacon_bytes(text: str | None) -> bytes | None:
    """``--beacon HEX``: an external randomness value of 32 bytes, as 64 lowercase or uppercase hex digits."""
    if text is None:
        return None
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = b""
    if len(value) != 32 or len(text) != 64:
        raise FairdealError(f"--beacon {text[:80]!r}: 64 hex digits (32 bytes) are expected")
    return value


def _shortened(value: object) -> object:
    """Every string of a report as one short line (a failure may quote what a transcript held)."""
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, dict):
        return {key: _shortened(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shortened(item) for item in value]
    return value


@click.command("deal")
@click.option(
    "--protocol",
    type=click.Choice(["commit-reveal", "mental-poker"]),
    default="commit-reveal",
    show_default=True,
    help="mental-poker: the bots' player objects shuffle an encrypted deck themselves.",
)
@system_option
@players_option
@click.option(
    "--hands",
    type=click.IntRange(1, 10_000),
    default=10,
    show_default=True,
    help="The most hands to play (the pulya may close earlier).",
)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--table", default="table-1", show_default=True)
@click.option("--session", default="session-1", show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Derive every key, seed and shuffle from this number, so the same seed deals the same evening "
    "(for tests and demonstrations: whoever knows it knows every deal; default: OS randomness).",
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
    help="A house rule, as in `fairdeal play --rule` (repeatable); the table statement carries it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--deal-only", is_flag=True, help="Only deal: transcripts without play, no game log.")
@click.option(
    "--beacon",
    metavar="HEX",
    default=None,
    help="commit-reveal: a public randomness value (64 hex digits) mixed into every deal (default: none).",
)
@click.option(
    "--keys",
    "keys_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A folder of identity keys (service.key and NAME.key per player, from `fairdeal keys new`); "
    "default: keys made for this run.",
)
def deal_command(
    protocol: str,
    system: str,
    num_players: int | None,
    hands: int,
    out_dir: Path,
    table: str,
    session: str,
    seed: int | None,
    pulya_size: int | None,
    names: str | None,
    rules: tuple[str, ...],
    as_json: bool,
    deal_only: bool,
    beacon: str | None,
    keys_dir: Path | None,
) -> None:
    """Play an evening with bots, every deal from the commit-reveal or the mental-poker protocol.

    Writes the game log OUT/evening.log and one transcript per hand in OUT/evening.log.transcripts/ (the log
    cites each by file and SHA-256); with --deal-only, just the transcripts, in OUT.
    """
    # Imported here: `verify` needs neither the match loop nor the dealing parties.
    from fairdeal.cli.play import CommandFailure, check_players, default_players, player_names, table_convention
    from fairdeal.engine.match import Unsettled
    from fairdeal.protocols.commit_reveal4.source import SETTLEMENT_FILE, RefusedHand
    from fairdeal.protocols.mental_poker.player import HandAbandoned, HandRefused
    from fairdeal.protocols.transcript import write_transcript

    convention = table_convention(system, rules, pulya_size)
    num_players = default_players(convention) if num_players is None else num_players
    check_players(convention, num_players)
    players = tuple(player_names(names, num_players))
    try:
        mixed = beacon_bytes(beacon)
    except FairdealError as exc:
        raise click.UsageError(str(exc)) from None
    if mixed is not None and protocol != "commit-reveal":
        raise click.UsageError("--beacon is mixed into commit-reveal deals only")
    try:
        spec = TableSpec(table, session, hands, players, convention)
        source = _source(protocol, spec, seed, keys_dir, mixed)
        require_empty_folder(out_dir)
        report = _deal_only(source, spec, out_dir) if deal_only else _deal_evening(source, spec, protocol, out_dir)
        roster = getattr(source, "roster", None)
        if roster is not None:  # v4: the signed roster, for `verify --roster`
            roster.save(out_dir / "roster.json")
    except Unsettled as refused:  # a seat refused the settlement: the evening did not settle; the refusal is filed
        path = out_dir / SETTLEMENT_FILE if deal_only else out_dir / f"{LOG_NAME}.transcripts" / SETTLEMENT_FILE
        raise CommandFailure(f"{refused}; settlement {path}") from None
    except RefusedHand as refused:
        path = out_dir / f"refused-hand-{refused.document['hand']:04d}.json"
        source.write_transcript(refused.document, path)
        raise CommandFailure(f"{refused}; transcript {path}") from None
    except (HandAbandoned, HandRefused) as stopped:
        kind = "refused" if isinstance(stopped, HandRefused) else "abandoned"
        path = out_dir / f"{kind}-hand-{source.transcripts[-1]['hand']:04d}.json"
        write_transcript(source.transcripts[-1], path)
        raise CommandFailure(f"{stopped}; transcript {path}") from None
    except FairdealError as exc:
        raise CommandFailure(str(exc)) from None
    text = report.pop("text")
    report.update(protocol=protocol, seed=seed)
    click.echo(json.dumps(report, ensure_ascii=False) if as_json else text)


def _source(
    protocol: str, spec: TableSpec, seed: int | None, keys_dir: Path | None = None, beacon: bytes | None = None
) -> CommitRevealSource4 | MentalPokerSource:
    """The dealing parties; with ``seed`` every secret comes from it (reproducible, and so not secret)."""
    if protocol == "mental-poker":
        return _mental_poker_source(spec, seed, keys_dir)
    return _commit_reveal_source(spec, seed, keys_dir, beacon)


def _mental_poker_source(spec: TableSpec, seed: int | None, keys_dir: Path | None) -> MentalPokerSource:
    """``fairdeal-mental-poker/4``: identity keys from ``keys_dir``, from ``seed``, or made for this run."""
    from fairdeal.protocols.mental_poker.player import Player as PokerPlayer
    from fairdeal.protocols.mental_poker.source import MentalPokerSource

    keys = _identity_keys(spec, seed, keys_dir, "identity")
    identities = dict(zip(spec.players, keys[1:]))
    if seed is None:
        return MentalPokerSource(spec, identities=identities, service=keys[0])
    rngs = {
        name: np.random.default_rng(int.from_bytes(_seeded(seed, f"shuffle/{name}")[:8], "big"))
        for name in spec.players
    }
    return MentalPokerSource(
        spec,
        lambda setup, name: PokerPlayer(setup, name, partial(_permutation, rngs[name])),
        identities=identities,
        service=keys[0],
    )


def _commit_reveal_source(
    spec: TableSpec, seed: int | None, keys_dir: Path | None, beacon: bytes | None = None
) -> CommitRevealSource4:
    """``fairdeal-commit-reveal/4``: identity keys from ``keys_dir``, from ``seed``, or made for this run."""
    keys = _identity_keys(spec, seed, keys_dir, "key")
    if seed is None:
        return CommitRevealSource4(spec, keys[0], keys[1:], beacon=beacon)
    sources = [lambda hand, attempt, name=name: _seeded(seed, f"seed/{name}/{hand}/{attempt}") for name in spec.players]
    return CommitRevealSource4(
        spec, keys[0], keys[1:], _seeded(seed, "service-tail"), sources, time="2000-01-01T00:00:00Z", beacon=beacon
    )


def _identity_keys(spec: TableSpec, seed: int | None, keys_dir: Path | None, label: str) -> list[IdentityKey]:
    """The service's identity key, then each player's: read from ``keys_dir``, derived from ``seed`` (under
    ``label``), or made for this run."""
    from fairdeal.protocols.identity import IdentityKey

    names = ["service", *spec.players]
    if keys_dir is not None:
        return [IdentityKey.load(keys_dir / f"{name}.key") for name in names]
    if seed is not None:
        return [IdentityKey.from_seed(_seeded(seed, f"{label}/{name}"), name) for name in names]
    return [IdentityKey.generate(name) for name in names]


def _permutation(rng: np.random.Generator, size: int) -> list[int]:
    return [int(i) for i in rng.permutation(size)]


def _seeded(seed: int, label: str) -> bytes:
    return hashlib.sha256(f"fairdeal deal --seed {seed}/{label}".encode()).digest()


def _deal_evening(
    source: CommitRevealSource4 | MentalPokerSource, spec: TableSpec, protocol: str, out_dir: Path
) -> dict[str, Any]:
    from fairdeal.cli.play import play_json
    from fairdeal.engine.bots import HeuristicBot
    from fairdeal.engine.match import play_match

    log = out_dir / LOG_NAME
    try:
        result = play_match(
            spec.convention,
            spec.players,
            [HeuristicBot() for _ in spec.players],
            source=source,
            max_hands=spec.hands,
            log=log,
        )
    finally:
        # The hand that ended the evening, the evidence of its end (the settlement, signed or refused, is filed by
        # the match beside it): commit-reveal keeps it as ``ended``, mental poker as its last transcript.
        stopped = _ended_document(source)
        if stopped is not None:
            folder = log.with_name(f"{log.name}.transcripts")
            folder.mkdir(exist_ok=True)
            source.write_transcript(stopped, folder / f"hand-{stopped['hand']:04d}.json")
    amounts = ", ".join(f"{name} {float(a):+g}" for name, a in zip(spec.players, result.settlement.amounts))
    text = (
        f"{len(result.hands)} hands dealt by {protocol} and played; log {log}; transcripts "
        f"{log.name}.transcripts/\nsettlement: {amounts}" + ("" if result.finished else f" ({result.stopped})")
    )
    report = play_json(result, None, log)
    report.update(hands=len(result.hands), transcripts=f"{log}.transcripts", text=text)
    return report


def _ended_document(source: CommitRevealSource4 | MentalPokerSource) -> Mapping[str, Any] | None:
    """The transcript of the hand a party's fault voided, if an end stopped the evening."""
    if isinstance(source, CommitRevealSource4):
        return source.ended
    return source.transcripts[-1] if source.end is not None else None


def _deal_only(source: CommitRevealSource4 | MentalPokerSource, spec: TableSpec, out_dir: Path) -> dict[str, Any]:
    from fairdeal.engine.match import StopMatch
    from fairdeal.engine.rotation import dealer_of

    lines: list[str] = []
    hands: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    for hand in range(1, spec.hands + 1):
        dealer, _ = dealer_of(spec.convention, hand - 1, 0, len(spec.players))
        try:
            source.deal(hand, dealer)
            doc = source.finish(hand)
        except StopMatch as stop:  # v4's end policy: a party's fault ends the evening here, as when played
            report = _deal_only_end(source, spec, out_dir, stop, lines)
            break
        path = out_dir / f"hand-{hand:04d}.json"
        digest = source.write_transcript(doc, path)
        talons = _deal_of(doc)["talons"]
        hands.append(
            {"hand": hand, "dealer": spec.players[dealer], "talons": talons, "file": str(path), "sha256": digest}
        )
        lines.append(
            f"hand {hand}: dealer {spec.players[dealer]}, talon {_talons(talons)}, {path.name} sha256 {digest[:16]}"
        )
    return {
        "system": spec.system,
        "pulya": spec.convention.pulya.size,
        "players": list(spec.players),
        "dealt": hands,
        **report,
        "text": "\n".join(lines),
    }


def _deal_only_end(
    source: CommitRevealSource4 | MentalPokerSource, spec: TableSpec, out_dir: Path, stop: Exception, lines: list[str]
) -> dict[str, Any]:
    """An evening a party's fault ended while only dealing: the void hand filed as the end's evidence, and the
    settlement signed as `fairdeal deal` without --deal-only signs it. Nothing was played, so every seat's sheet
    is empty but for the end's charge, which is what each honest player checks the amounts against."""
    from fairdeal.engine.match import StopMatch, Unsettled
    from fairdeal.engine.settlement import settle
    from fairdeal.engine.sheet import new_sheet
    from fairdeal.protocols.commit_reveal4.source import SETTLEMENT_FILE

    assert isinstance(stop, StopMatch)
    ended = _ended_document(source)
    assert ended is not None  # set by the source before it ends the evening
    path = out_dir / f"hand-{ended['hand']:04d}.json"
    digest = source.write_transcript(ended, path)
    sheet = new_sheet(spec.convention, len(spec.players)).apply(stop.penalty)
    amounts = settle(sheet, spec.convention).amounts
    try:
        closing = source.signed_settlement(amounts)
    except Unsettled as refused:  # filed as the evidence of whose fault it was; the command fails
        source.write_transcript(refused.document, out_dir / SETTLEMENT_FILE)
        raise
    assert closing is not None  # v4: the only version whose hands end an evening
    settlement = closing
    closed = out_dir / SETTLEMENT_FILE
    sealed = source.write_transcript(settlement, closed)
    reason = str(stop)
    paid = ", ".join(f"{name} {float(a):+g}" for name, a in zip(spec.players, amounts))
    lines.append(f"hand {ended['hand']}: void, {path.name} sha256 {digest[:16]}")
    lines.append(f"settlement: {paid} ({reason}); {closed.name} sha256 {sealed[:16]}")
    return {
        "stopped": reason,
        "ended": {"hand": ended["hand"], "file": str(path), "sha256": digest},
        "settlement": {name: float(a) for name, a in zip(spec.players, amounts)},
        "settlement_file": {"file": str(closed), "sha256": sealed},
    }


def _deal_of(doc: Mapping[str, Any]) -> Any:
    """The published deal: mental poker keeps it at the top, commit-reveal v4 in the service's signed hand-close."""
    if "deal" in doc:
        return doc["deal"]
    return next(m["body"]["deal"] for m in doc["messages"] if m["kind"] == "hand-close")


def _talons(talons: Sequence[Sequence[str]]) -> str:
    return " | ".join(" ".join(talon) for talon in talons)


COMMANDS = [verify_command, deal_command]
