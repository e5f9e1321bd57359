"""How a dealer's shuffles were logged, in words: card by card (every riffle's packets, every run and cut depth),
not in detail (riffles without their pattern, cuts without depth), or partly — instead of a bare "0 bits of
randomness", which reads as an accusation when it only means that nothing of the shuffle was left unrecorded."""

from __future__ import annotations

from fairdeal.audit.report.numbers import number
from fairdeal.audit.verdict import DealerQuality

RECORD = {
    "detail": {"en": "logged card by card", "ru": "записана покарточно"},
    "none": {"en": "shuffle not logged in detail", "ru": "тасовка записана не подробно"},
    "partly": {"en": "card by card in {detail} of {read}", "ru": "покарточно в {detail} из {read}"},
}
BITS = {"en": "at most {bits} bits of chance", "ru": "не больше {bits} бит случайности"}


def record_kind(q: DealerQuality) -> str:
    """``detail``, ``none`` or ``partly``: how many of the dealer's read shuffles were logged with every detail."""
    if q.read and q.measured >= q.read:
        return "detail"
    return "partly" if q.measured else "none"


def record_words(q: DealerQuality, lang: str) -> str:
    kind = record_kind(q)
    return RECORD[kind][lang].format(detail=number(q.measured, lang), read=number(q.read, lang))


def undetailed_bits(q: DealerQuality) -> float | None:
    """Mean bits of chance over the shuffles not logged in detail (a detailed one leaves none unrecorded)."""
    rest = q.read - q.measured
    if rest <= 0:
        return None
    return q.mean_bits * q.read / rest


def bits_words(q: DealerQuality, lang: str) -> str:
    bits = undetailed_bits(q)
    return "-" if bits is None else BITS[lang].format(bits=number(bits, lang))
