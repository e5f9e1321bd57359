"""A drawn hand's cards: as card strings for the terminal (``A♠ K♠ 10♥``) and as HTML with the suits coloured.

Each seat's cards are sorted by suit (♠ ♣ ♦ ♥, the bidding order) and rank, highest first, as a player holds
them; the talon keeps its dealt order.
"""

from __future__ import annotations

import html

from fairdeal.audit.report import templates as words
from fairdeal.audit.report.evidence import DrawnHand
from fairdeal.audit.report.narrative import hand_caption, who
from fairdeal.cards import Card, parse_card
from fairdeal.errors import FairdealError

HAND_STYLE = """.deal{border:1px solid #ccc;border-radius:6px;padding:.5em .8em;margin:.6em 0;display:inline-block;
min-width:30em}.deal h4{margin:.1em 0 .4em;font-size:.95em}.deal td{border:none;padding:.1em .6em .1em 0}
.card{font-family:ui-monospace,monospace;font-size:1.05em;margin-right:.35em}.red{color:#c00}.black{color:#111}
.talon td{font-weight:bold}.out{color:#888;font-style:italic}"""


def _cards(texts: tuple[str, ...], sort: bool) -> list[Card | str]:
    cards: list[Card | str] = []
    for text in texts:
        try:
            cards.append(parse_card(text))
        except FairdealError:
            cards.append(text)  # a bad card string is shown as logged
    if sort:
        known = sorted((c for c in cards if isinstance(c, Card)), key=lambda c: (int(c.suit), -int(c.rank)))
        cards = [*known, *(c for c in cards if not isinstance(c, Card))]
    return cards


def card_line(texts: tuple[str, ...], sort: bool = True) -> str:
    """Cards as one string: ``A♠ 10♠ K♥``."""
    return " ".join(str(c) for c in _cards(texts, sort))


def hand_text(hand: DrawnHand, lang: str) -> list[str]:
    """The hand for the terminal: its caption, then a line per seat and per talon."""
    width = max([len(who(p)) for p, _ in hand.seats] + [len(words.TALON_WORD[lang])])
    lines = [hand_caption(hand, lang)]
    for player, cards in hand.seats:
        lines.append(f"  {who(player):<{width}}  {card_line(cards) if cards else words.OUT_WORD[lang]}")
    for talon in hand.talons:
        lines.append(f"  {words.TALON_WORD[lang]:<{width}}  {card_line(talon, sort=False)}")
    return lines


def _card_html(card: Card | str) -> str:
    if isinstance(card, str):
        return f"<span class='card'>{html.escape(card)}</span>"
    colour = "red" if card.suit.is_red else "black"
    return f"<span class='card {colour}'>{html.escape(str(card))}</span>"


def hand_html(hand: DrawnHand, lang: str) -> str:
    """The hand as an HTML block: caption, a row per seat, the talon; suits coloured."""
    rows = []
    for player, cards in hand.seats:
        shown = "".join(_card_html(c) for c in _cards(cards, True)) or (
            f"<span class='out'>{html.escape(words.OUT_WORD[lang])}</span>"
        )
        rows.append(f"<tr><td>{html.escape(who(player))}</td><td>{shown}</td></tr>")
    for talon in hand.talons:
        shown = "".join(_card_html(c) for c in _cards(talon, False))
        rows.append(f"<tr class='talon'><td>{html.escape(words.TALON_WORD[lang])}</td><td>{shown}</td></tr>")
    return f"<div class='deal'><h4>{html.escape(hand_caption(hand, lang))}</h4><table>{''.join(rows)}</table></div>"
