"""Simulated evenings for calibrating and testing the auditor: honest dealers and one cheating dealer.

Every hand starts from a uniformly random gathered order. An honest dealer runs a few card-by-card packets of
random sizes (seed 004's "2", "4", ...) chosen without looking, and his right neighbour cuts at a uniform legal
depth. The cardsharp, in a share of his deals, instead picks an ace and runs it to where his accomplice's
habitual cut will carry it into the talon: reversing the top k brings card k to the top, reversing the top
t + 1 then leaves it at position t, and the cut of depth d moves position (6 + d) mod 32 to the talon place 6.
Other cheats arrange the deal itself, in a share of the cheat's deals: his partner, the player to his left (first
hand), gets three aces (``aces``) or a long suit of six headed by its ace (``long-suit``), or the talon gets two of
the lowest cards (``junk-talon``). The cheat gathered the cards so that his honest-looking shuffle gives that deal,
so the logged order, shuffle and deal agree.
A cheating cutter, in a share of his cuts, reads the
deck and cuts at the legal depth that gives his own hand the most (``actors.cutter.best_depths``).
Records carry the order, the shuffle and the deal only (the other fields of a hand are optional in the log).

Honest evenings also come in other styles (``STYLES``): Pemantle overhands logged packet by packet, GSR riffles
logged with their interleaving, or riffles and a cut logged without details ("unknown"); and with imperfect
logs: in a share ``log_misses`` of the hands one action the dealer made (chosen at random) is left out of the
logged shuffle, the deal being what the whole shuffle gave.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec
import numpy as np

from fairdeal.audit.actors.cutter import best_depths
from fairdeal.audit.fastpath import CUT, RUN, CompiledShuffle, apply_compiled, step_notation
from fairdeal.cards import NUM_CODES, Rank, rank_of, to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order, get_pattern
from fairdeal.errors import AuditError
from fairdeal.log.records import DealRecord, HandRecord, TableRecord
from fairdeal.shuffle.models import CODEX_MIN_EACH_SIDE, gsr_riffle, pemantle_overhand
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import ShuffleSequence

if TYPE_CHECKING:
    from collections.abc import Iterator

PATTERN = get_pattern("russian")
FIRST_TALON_PLACE = int(PATTERN.talon_positions[0, 0])
CHEATS = ("talon-ace", "aces", "long-suit", "junk-talon")
PARTNER_HAND = 0  # the first hand: the player to the dealer's left
LONG_SUIT = 6


@dataclass(frozen=True)
class Evening:
    players: tuple[str, ...] = ("Anna", "Boris", "Vera")
    cheater: int | None = None  # seat of the ace-stacking dealer
    rate: float = 0.25  # share of his deals he stacks
    accomplice_depth: int = 11  # the cut his right neighbour makes when he stacks
    cheat: str = "talon-ace"  # one of CHEATS
    cheating_cutter: int | None = None  # seat of a cutter who, in a share of his cuts, picks the depth best for him
    cutter_rate: float = 0.25
    style: str = "runs"  # how honest dealers shuffle and log it: one of STYLES
    log_misses: float = 0.0  # share of hands whose logged shuffle leaves out one action that was made


def arrange_deal(after: np.ndarray, cheat: str, rng: np.random.Generator) -> None:
    """Rearrange one dealt order (deck after the shuffle) in place, as ``cheat`` wants it."""
    hand = PATTERN.hand_positions[PARTNER_HAND]
    talon = PATTERN.talon_positions.reshape(-1)
    ranks, suits = rank_of(after), after // 8
    if cheat == "junk-talon":
        low = np.flatnonzero(ranks <= int(PATTERN.deck.lowest_rank) + 1)
        keep = [p for p in talon if p in low]
        wanted = [int(p) for p in rng.permutation(np.setdiff1d(low, talon))[: len(talon) - len(keep)]]
        incoming = iter(wanted)
        targets = [int(p) for p in talon if p not in low]
    elif cheat == "aces":
        aces = np.flatnonzero(ranks == int(Rank.ACE))
        outside = rng.permutation(np.setdiff1d(aces, hand))
        missing = max(0, 3 - len(np.intersect1d(aces, hand)))
        incoming = iter(int(p) for p in outside[:missing])
        targets = [int(p) for p in rng.permutation(np.setdiff1d(hand, aces))[:missing]]
    else:
        suit = int(rng.integers(0, 4))
        mine = np.flatnonzero(suits == suit)
        ace = int(mine[ranks[mine] == int(Rank.ACE)][0])
        others = [int(p) for p in rng.permutation(np.setdiff1d(mine, np.append(hand, ace)))]
        held = len(np.intersect1d(mine, hand))
        needed = max(0, LONG_SUIT - held - (ace not in hand))
        incoming = iter(([] if ace in hand else [ace]) + others[:needed])
        targets = [int(p) for p in rng.permutation(np.setdiff1d(hand, mine))[: needed + (ace not in hand)]]
    for target in targets:
        source = next(incoming)
        after[[target, source]] = after[[source, target]]


STYLES = ("runs", "overhand", "riffle", "unknown")


def header(evening: Evening) -> TableRecord:
    return TableRecord(
        format="fairdeal-log",
        version=1,
        system="sochi",
        players=list(evening.players),
        deck=PATTERN.deck.value,
        deal_pattern=PATTERN.name,
        dealing="physical",
        pulya=20,
    )


def honest_shuffle(rng: np.random.Generator, cutter: int) -> str:
    runs = [str(int(k)) for k in rng.integers(2, 13, size=int(rng.integers(2, 6)))]
    return " ".join(runs + [f"cut@{cutter} {int(rng.integers(4, 29))}"])


def styled_shuffle(rng: np.random.Generator, cutter: int, style: str) -> tuple[str, str]:
    """An honest shuffle of ``style``: (what was done, in the full notation; what the log says)."""
    n = PATTERN.deck.size
    cut = f"cut@{cutter} {int(rng.integers(4, 29))}"
    if style == "runs":
        done = honest_shuffle(rng, cutter)
        return done, done
    if style == "overhand":
        ops = [pemantle_overhand(rng, n).notation() for _ in range(int(rng.integers(2, 4)))]
    elif style in ("riffle", "unknown"):
        ops = [gsr_riffle(rng, n).notation() for _ in range(int(rng.integers(6, 9)))]  # enough to randomise
    else:
        raise AuditError(f"an honest style is one of {', '.join(STYLES)}, got {style!r}")
    done = " ".join([*ops, cut])
    if style == "unknown":
        return done, " ".join(["riffle ?"] * len(ops) + [f"cut@{cutter} ?"])
    return done, done


def _left_out(rng: np.random.Generator, shuffle: str) -> str:
    """The logged shuffle with one of its actions (at random) left out."""
    actions = parse_notation(shuffle).actions
    if len(actions) < 2:
        return shuffle
    skip = int(rng.integers(0, len(actions)))
    return ShuffleSequence(actions[:skip] + actions[skip + 1 :]).notation()


def stacking_shuffle(before: np.ndarray, rng: np.random.Generator, cutter: int, depth: int) -> str:
    """Runs bringing one ace to the place the accomplice's cut of ``depth`` turns into the first talon card."""
    n = len(before)
    target = (FIRST_TALON_PLACE + depth) % n
    aces = np.flatnonzero(rank_of(before) == int(Rank.ACE))
    at = int(rng.choice(aces))
    runs = [k for k in (at + 1, target + 1) if k > 1]
    return " ".join([str(k) for k in runs] + [f"cut@{cutter} {depth}"])


def simulated_hand(rng: np.random.Generator, evening: Evening, number: int) -> HandRecord:
    seats = len(evening.players)
    dealer = (number - 1) % seats
    cutter = (dealer - 1) % seats
    before = rng.permutation(PATTERN.deck.codes())
    cheats = dealer == evening.cheater and rng.random() < evening.rate
    if cheats and evening.cheat == "talon-ace":
        done = logged = stacking_shuffle(before, rng, cutter, evening.accomplice_depth)
    else:
        done, logged = styled_shuffle(rng, cutter, evening.style)
        if cutter == evening.cheating_cutter and " cut@" in done and rng.random() < evening.cutter_rate:
            runs = done.rsplit(" cut@", 1)[0]
            pre = before[parse_notation(runs).permutation(PATTERN.deck.size)]
            depth = best_depths(pre[None, :], np.array([dealer]), cutter, PATTERN, seats, CODEX_MIN_EACH_SIDE, rng)
            done = logged = f"{runs} cut@{cutter} {int(depth[0])}"
    if evening.log_misses and rng.random() < evening.log_misses:
        logged = _left_out(rng, logged)
    perm = parse_notation(done).permutation(PATTERN.deck.size)
    after = before[perm]
    if cheats and evening.cheat != "talon-ace":
        arrange_deal(after, evening.cheat, rng)
        before = np.empty_like(after)
        before[perm] = after
    dealt = deal_order(after, PATTERN)
    hands = [to_ascii_list(h) for h in deal_by_seat(dealt, PATTERN, dealer, seats)]
    return HandRecord(
        hand=number,
        dealer=dealer,
        order_before=to_ascii_list(before),
        shuffle=logged,
        deal=DealRecord(hands=hands, talons=[to_ascii_list(t) for t in dealt.talons]),
    )


def simulated_records(rng: np.random.Generator, evening: Evening, hands: int) -> Iterator[TableRecord | HandRecord]:
    """The header, then ``hands`` hand records, one at a time."""
    check_evening(evening)
    yield header(evening)
    for number in range(1, hands + 1):
        yield simulated_hand(rng, evening, number)


def check_evening(evening: Evening) -> None:
    if evening.cheater is not None and not 0 <= evening.cheater < len(evening.players):
        raise AuditError(f"the cheater must be a seat 0..{len(evening.players) - 1}")
    if evening.cheat not in CHEATS:
        raise AuditError(f"unknown cheat {evening.cheat!r}: use one of {', '.join(CHEATS)}")


def fast_evening_lines(rng: np.random.Generator, evening: Evening, hands: int, block: int = 20_000) -> Iterator[bytes]:
    """The model of ``simulated_records`` written as log lines (bytes), a block of hands at a time.

    Shuffles are drawn as op tables and replayed with numpy, so a million hands take seconds; each record
    carries the order before shuffling, the shuffle and the deal, like ``simulated_hand``.
    """
    check_evening(evening)
    yield (json.dumps(msgspec.to_builtins(header(evening)), ensure_ascii=False) + "\n").encode()
    quoted = np.array(['"' + c + '"' for c in to_ascii_list(range(NUM_CODES))], dtype=object)
    for first in range(1, hands + 1, block):
        numbers = np.arange(first, min(first + block, hands + 1))
        yield _fast_block(rng, evening, numbers, quoted)


def _fast_block(rng: np.random.Generator, evening: Evening, numbers: np.ndarray, quoted: np.ndarray) -> bytes:
    seats, n = len(evening.players), PATTERN.deck.size
    m = len(numbers)
    dealers = (numbers - 1) % seats
    before = PATTERN.deck.codes()[np.argsort(rng.random((m, n)), axis=1)]
    kinds, args, actors = _honest_ops(rng, m, (dealers - 1) % seats, n)
    cheats = (dealers == evening.cheater) & (rng.random(m) < evening.rate)
    stack = cheats & (evening.cheat == "talon-ace")
    if stack.any():
        _stacking_ops(
            rng,
            before[stack],
            evening.accomplice_depth,
            (dealers[stack] - 1) % seats,
            kinds,
            args,
            actors,
            np.flatnonzero(stack),
        )
    if evening.cheating_cutter is not None:
        _cheating_cuts(rng, evening, before, dealers, kinds, args, actors, ~stack)
    compiled = CompiledShuffle(kinds, args, actors)
    after = apply_compiled(before, compiled)
    arranged = np.flatnonzero(cheats & (evening.cheat != "talon-ace"))
    if len(arranged):
        perms = apply_compiled(np.broadcast_to(np.arange(n), (len(arranged), n)), _rows(compiled, arranged))
        for row, perm in zip(arranged, perms):
            arrange_deal(after[row], evening.cheat, rng)
            before[row, perm] = after[row]
    by_hand = after[:, PATTERN.hand_positions]  # (m, hands, cards)
    talon = after[:, PATTERN.talon_positions[0]]
    lines = []
    for k in range(m):
        dealer = int(dealers[k])
        seat_lists: list[str | None] = [None] * seats
        for h in range(PATTERN.hands):
            seat_lists[(dealer + 1 + h) % seats] = _cards(quoted, by_hand[k, h])
        seated = [cards for cards in seat_lists if cards is not None]
        assert len(seated) == seats  # the fast model seats every player (three at the Russian deal)
        shuffle = " ".join(
            step_notation(kinds[k, j], args[k, j], actors[k, j]) for j in range(kinds.shape[1]) if kinds[k, j]
        )
        lines.append(
            f'{{"type":"hand","hand":{numbers[k]},"dealer":{dealer},"order_before":'
            f'{_cards(quoted, before[k])},"shuffle":"{shuffle}","deal":{{"hands":[{",".join(seated)}],'
            f'"talons":[{_cards(quoted, talon[k])}]}}}}\n'
        )
    return "".join(lines).encode()


def _rows(compiled: CompiledShuffle, rows: np.ndarray) -> CompiledShuffle:
    return CompiledShuffle(compiled.kinds[rows], compiled.args[rows], compiled.actors[rows])


def _cards(quoted: np.ndarray, codes: np.ndarray) -> str:
    return "[" + ",".join(quoted[codes]) + "]"


def _honest_ops(
    rng: np.random.Generator, m: int, cutters: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``honest_shuffle`` for many hands: 2-5 runs of 2-12 cards, then a legal cut by the right neighbour."""
    steps = 6
    runs = rng.integers(2, 6, size=m)
    kinds = np.zeros((m, steps), dtype=np.int64)
    args = np.zeros((m, steps), dtype=np.int64)
    actors = np.full((m, steps), -1, dtype=np.int64)
    slot = np.arange(steps)[None, :]
    kinds[slot < runs[:, None]] = RUN
    args[slot < runs[:, None]] = rng.integers(2, 13, size=int(runs.sum()))
    rows = np.arange(m)
    kinds[rows, runs] = CUT
    args[rows, runs] = rng.integers(4, 29, size=m)
    actors[rows, runs] = cutters
    return kinds, args, actors


def _cheating_cuts(
    rng: np.random.Generator,
    evening: Evening,
    before: np.ndarray,
    dealers: np.ndarray,
    kinds: np.ndarray,
    args: np.ndarray,
    actors: np.ndarray,
    eligible: np.ndarray,
) -> None:
    """The cheating cutter's depth, in a share of his cuts, written over the honest one (the last op)."""
    seats = len(evening.players)
    cheat = evening.cheating_cutter
    rows = np.flatnonzero(
        eligible & ((dealers - 1) % seats == cheat) & (rng.random(len(dealers)) < evening.cutter_rate)
    )
    if not len(rows) or cheat is None:
        return
    last = (kinds[rows] == CUT).argmax(axis=1)
    runs = np.where(np.arange(kinds.shape[1])[None, :] < last[:, None], kinds[rows], 0)
    pre = apply_compiled(before[rows], CompiledShuffle(runs, args[rows], actors[rows]))
    args[rows, last] = best_depths(pre, dealers[rows], cheat, PATTERN, seats, CODEX_MIN_EACH_SIDE, rng)


def _stacking_ops(
    rng: np.random.Generator,
    before: np.ndarray,
    depth: int,
    cutters: np.ndarray,
    kinds: np.ndarray,
    args: np.ndarray,
    actors: np.ndarray,
    rows: np.ndarray,
) -> None:
    """``stacking_shuffle`` for many hands, written over their rows of the op tables."""
    n = before.shape[1]
    target = (FIRST_TALON_PLACE + depth) % n
    ace_places = np.argsort(rank_of(before) != int(Rank.ACE), axis=1, kind="stable")[:, :4]
    at = ace_places[np.arange(len(before)), rng.integers(0, 4, size=len(before))]
    kinds[rows], args[rows], actors[rows] = 0, 0, -1
    for j, run in enumerate((at + 1, np.full(len(before), target + 1))):
        used = run > 1
        kinds[rows[used], j] = RUN
        args[rows[used], j] = run[used]
    kinds[rows, 2] = CUT
    args[rows, 2] = depth
    actors[rows, 2] = cutters
