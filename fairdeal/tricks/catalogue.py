"""The cardsharp's catalogue: every technique as a value, with what the casebook says of it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from fairdeal.errors import TrickError
from fairdeal.tricks.base import Technique
from fairdeal.tricks.cuts import FalseCut, FalseShuffle, Volt
from fairdeal.tricks.dealing import BottomDeal, SecondDeal, SwitchedTalon
from fairdeal.tricks.lazy import LazyShuffle
from fairdeal.tricks.stacking import PartnerRunUp, PartnerStack, TalonStack
from fairdeal.tricks.weak_server import WeakServer

SEED_004 = "seed 004 «Преферанс против шулера»: runs «2», «4» reverse the top cards; the talon is cards 7-8"
TARGETING = (
    "the talon's aces and value per dealer: exact totals, the mixture e-process and the CUSUM against "
    "honest (uniform) deals"
)
REPLAY = "replay: the deal is compared with the logged shuffle replayed from the gathered order (deal-mismatch)"

_TECHNIQUES: tuple[Technique, ...] = (
    TalonStack(
        "talon-runs",
        "Card-by-card runs stack the talon; a crimp forces the cut",
        SEED_004 + "; the crimp: Erdnase, The Expert at the Card Table (1902)",
        "Knowing the gathered order, the dealer runs the top cards («2», «4», ...) so that two aces lie where the "
        "cut will turn them into the talon, and crimps the card at which his neighbour will cut.",
        "The gathered order, a few runs and a cut whose depth varies from deal to deal; the talon holds the aces.",
        TARGETING,
    ),
    TalonStack(
        "talon-arrows",
        "Arrow runs (2↑ 4↑ 6↑) stack the talon",
        "cardsharp literature's arrow notation (a run put under the deck); " + SEED_004,
        "As talon-runs, but every packet run singly goes under the deck (k↑), which also turns the deck.",
        "Arrow runs and a cut; the talon holds the aces.",
        TARGETING,
        moves="arrows",
    ),
    TalonStack(
        "talon-open-cut",
        "Stacking the talon against an honest cut",
        SEED_004,
        "The dealer stacks two aces for the cut that needs the fewest runs, but the neighbour cuts honestly at a "
        "uniform legal depth; the aces reach the talon only when the cut falls where he aimed.",
        "Runs and an honest cut; the talon rarely holds the stacked aces (the measured hit rate is in this page), "
        "but the replayed deck holds two aces side by side that were not neighbours in the gathered order.",
        "the shuffle's tells: aces brought together (new ace neighbours against honest shuffles of the same effort "
        "from the gathered order, Fisher per dealer)",
        cut="open",
    ),
    TalonStack(
        "crimp-cut",
        "A crimp forces every cut to the same depth",
        "Erdnase (1902), the crimp; " + SEED_004,
        "The dealer always crimps at the same place (11 cards down) and stacks the aces for that cut.",
        "Runs and a cut of the same depth hand after hand.",
        TARGETING + "; the repeated cut depth (binomial test against uniform legal depths)",
        crimp_depth=11,
    ),
    PartnerStack(
        "partner-stack",
        "Stacking a partner's hand",
        SEED_004 + "; stacking by runs: Maskelyne, Sharps and Flats (1894)",
        "Runs place three aces on the deal positions of the partner (the right-hand neighbour, who then cuts "
        "where agreed); positions of one hand lie six apart, two cards times three hands.",
        "Runs and a cut at the agreed depth; the partner's hands are strong when this dealer deals.",
        "the repeated depth of the agreed cut names the dealer; hand value per hand (Fisher over the partner's "
        "hands against the same-effort null) names the partner",
    ),
    PartnerRunUp(
        "partner-runup",
        "The overhand run-up: a partner's hand stacked by running cards singly",
        SEED_004 + "; the run-up (stock stacking by the overhand shuffle): Erdnase (1902), Maskelyne (1894)",
        "Overhand shuffles: one packet thrown under turns the deck, cards run singly are laid in reverse; the "
        "runs are counted in the deal's rhythm (by two to three hands a hand's pairs come round every 6 cards), so "
        "three aces land on the partner's places and the partner, cutting, cuts where agreed.",
        "Overhand shuffles with long runs of singles (`overhand 1,1,1,...`), single-packet overhands, and a cut at "
        "the agreed depth; the partner's hands are strong when this dealer deals.",
        "the repeated depth of the agreed cut names the dealer; hand value per (dealer, seat) names the partner",
    ),
    FalseCut(
        "false-cut",
        "The false cut, seen",
        "Erdnase (1902): false cuts that leave the stock in place",
        "The dealer stacks the talon, his neighbour cuts, and the dealer puts the halves back in full view.",
        "A cut followed by the dealer's cut of the complement: two actions that undo each other.",
        "replay tells: consecutive actions that cancel (false-cut), a certain finding",
    ),
    Volt(
        "volt",
        "The pass (вольт): the cut undone unseen",
        "the classic pass (вольт) of Russian cardsharps; Erdnase (1902), the shift",
        "The dealer stacks the talon, the neighbour cuts, and a pass secretly restores the halves before the deal.",
        "A logged cut the deal ignores: the deal differs from the replay exactly as if the cut were not made.",
        REPLAY + "; explained as «the logged cut was not made: a false cut»",
    ),
    FalseShuffle(
        "false-shuffle",
        "Riffles that keep a bottom stock",
        "Erdnase (1902): riffles retaining the bottom stock",
        "Runs put two aces at the bottom; three riffles all let the bottom cards fall first; a crimp at 24 "
        "brings the bottom eight to the top, the aces to cards 7-8.",
        "Riffle patterns that always end in RR, and the same cut depth every time.",
        TARGETING + "; the repeated cut depth",
    ),
    BottomDeal(
        "bottom-deal",
        "The bottom deal",
        "Erdnase (1902), the bottom deal",
        "After a fair shuffle and cut the dealer knows the order; an ace among the bottom two cards is dealt "
        "from the bottom into the talon.",
        "A fair shuffle; a deal that differs from its replay by a card from the bottom.",
        REPLAY + "; explained as «a card from the bottom dealt as card i»",
        deal_time=True,
    ),
    SecondDeal(
        "second-deal",
        "The second deal",
        "Erdnase (1902), the second deal",
        "An ace among the first six cards is held on top while seconds are dealt under it, and goes out as the "
        "first talon card.",
        "A fair shuffle; a deal that differs from its replay by one card moved later.",
        REPLAY,
        deal_time=True,
    ),
    SwitchedTalon(
        "switched-talon",
        "The switched talon",
        "a talon exchanged during the deal (classic club cheating)",
        "A plain talon card is switched for an ace that was dealt to a hand.",
        "A fair shuffle; a deal whose talon and one hand exchanged a card against the replay.",
        REPLAY + "; explained as «talon switched with cards of hand h»",
        deal_time=True,
    ),
    LazyShuffle(
        "lazy-shuffle",
        "The lazy shuffle and the attentive opponent",
        "Bayer and Diaconis, Trailing the dovetail shuffle to its lair (1992); the gathered order of seed 004",
        "An honest dealer riffles only twice; an opponent who watched the tricks gathered names the likeliest "
        "talon cards from the gathered order and the visible cut.",
        "Two riffles and a cut: the deck keeps long rising sequences of the gathered order.",
        "the shuffle's tells: a shuffle too weak for its riffles (cyclic guessing score, binomial per dealer)",
    ),
    WeakServer(
        "weak-server",
        "The weak online server (a 32-bit clock seed)",
        "the 1999 ASF online-poker shuffle flaw (Arkin, Hill et al., 'How we learned to cheat at online poker')",
        "The server seeds a 32-bit LCG with the time; a player searches the seeds near the time with his own ten "
        "cards and learns every hand and the talon.",
        "Nothing unusual in the log: the deals look uniform; only the seed search shows they are not.",
        "the seed search (`fairdeal audit --server-seed-window 16`) over a window around the table's start time, "
        "a finding rather than a statistical test",
    ),
)

TRICKS: Mapping[str, Technique] = MappingProxyType({t.name: t for t in _TECHNIQUES})


def get_trick(name: str) -> Technique:
    """The technique called ``name``; a ``TrickError`` lists the catalogue."""
    key = name.strip().lower()
    if key not in TRICKS:
        raise TrickError(f"unknown trick {name!r}; the catalogue: {', '.join(TRICKS)}")
    return TRICKS[key]
