"""The Slovenian variant of Croatian preferans (seed 003, «Варианты»): a worked example of a system with a mechanic
of its own, added as this one module (docs/architecture.md counts what it touched).

«В Словении играют в такую разновидность. Мизер (Bettel) называется Берах (Berac). В бескозырной игре (Sanac),
называемой здесь sans atout (без козыря), первый ход всегда под разыгрывающего. Рефет здесь называется radlc. Если
играется контракт два (просто пика) и никто не законтрил, то никто ничего не пишет; а если никто не «под шляпой»,
то все получают рефет. По некоторым правилам прикуп не показывают (берут втёмную).»
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fairdeal.engine.bids import bid_from_contract
from fairdeal.engine.countdown import grant_refe
from fairdeal.engine.hand import CENTRAL
from fairdeal.engine.outcome import HandKind, HandOutcome
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.engine.system import System, register
from fairdeal.rules.central import CROATIAN
from fairdeal.systems.central import number_words

# «просто пика»: the lowest number of the Croatian ladder, 2 = spades.
PLAIN_TWO = CROATIAN.bidding.first_number

SLOVENIAN = replace(
    CROATIAN,
    name="slovenian",
    title="Словенский преферанс (Slovenian)",
    description="Croatian with Berac, sans atout led into the declarer, radlc, an unkontra'd two writes nothing",
    # «Мизер (Bettel) называется Берах (Berac) ... sans atout (без козыря)»: the games named at once.
    bidding=replace(CROATIAN.bidding, named_games=((6, "berac"), (7, "sans-atout"))),
    # The two is played without a kontra (it writes nothing then) instead of Croatian's «должен законтрить».
    defence=replace(CROATIAN.defence, kontra_required_numbers=frozenset()),
    # «первый ход всегда под разыгрывающего»: the lead comes from the declarer's right, into him.
    play=replace(CROATIAN.play, no_trump_lead="right_of_declarer"),
)


@dataclass(frozen=True)
class Slovenian(System):
    """Croatian scoring, but an unkontra'd plain two writes nothing and gives everyone a radlc (refe) unless
    someone is under the hat."""

    def score_hand(self, sheet: Sheet, outcome: HandOutcome) -> tuple[Sheet, tuple[ScoreLine, ...]]:
        if self._unkontrad_two(outcome):
            refe = sheet.refe or (0,) * sheet.num_seats
            return grant_refe(replace(sheet, refe=refe), self.convention), ()
        return super().score_hand(sheet, outcome)

    def _unkontrad_two(self, outcome: HandOutcome) -> bool:
        if outcome.kind is not HandKind.GAME or outcome.contract is None or outcome.contract.no_talon:
            return False
        number = self.convention.bidding.number_of(bid_from_contract(outcome.contract).token)
        return number == PLAIN_TWO and not dict(outcome.extras).get("kontra")


register(Slovenian(SLOVENIAN, family="central", vocabulary=number_words("hearts|berac|sans-atout"), mechanics=CENTRAL))
