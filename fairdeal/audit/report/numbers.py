"""Numbers a person reads: "about 1 in 8,300", counts with their nouns, in English and Russian."""

from __future__ import annotations

import math

LANGUAGES = ("en", "ru")
_SCALES = {
    "en": ((1e9, "billion"), (1e6, "million")),
    "ru": ((1e9, "млрд"), (1e6, "млн")),
}
WORDS_UP_TO = 1e12  # beyond this "1 in 10^N" reads better than a number of billions
FLOOR = 1e-300  # a p-value of 0 is a floating-point underflow, not a certainty


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown report language {lang!r}: use {' or '.join(LANGUAGES)}")
    return lang


def number(x: float, lang: str, digits: int = 0) -> str:
    """A count or value with thousands separators (a comma in English, a space in Russian)."""
    text = f"{x:,.{digits}f}"
    if lang == "ru":
        text = text.replace(",", "\u00a0").replace(".", ",")
    return text


def _significant(x: float, figures: int) -> float:
    if x <= 0:
        return 0.0
    scale = 10 ** (math.floor(math.log10(x)) - figures + 1)
    return float(round(x / scale) * scale)


def one_in(p: float, lang: str) -> str:
    """``N`` of "1 in N" for a probability ``p``, rounded to what a reader can use."""
    n = 1.0 / max(min(p, 1.0), FLOOR)
    if n < 1.05:
        return "1"
    if n < 10:
        return number(n, lang, 1).removesuffix(".0").removesuffix(",0")
    if n < 100:
        return number(round(n), lang)
    if n < 1e6:
        return number(_significant(n, 2), lang)
    if n < WORDS_UP_TO:
        for scale, word in _SCALES[lang]:
            if n >= scale:
                value = _significant(n / scale, 2)
                digits = 0 if value >= 10 or value == int(value) else 1
                return f"{number(value, lang, digits)} {word}"
    return f"10^{math.floor(math.log10(n))}"


def about_one_in(p: float, lang: str) -> str:
    """ "about 1 in 8,300" / "примерно 1 из 8 300"; a p-value at the floating-point floor is "less than"."""
    n = one_in(p, lang)
    if p <= FLOOR:
        return f"less than 1 in {n}" if lang == "en" else f"меньше 1 из {n}"
    return f"about 1 in {n}" if lang == "en" else f"примерно 1 из {n}"


def ru_plural(n: int, forms: tuple[str, str, str]) -> str:
    """The Russian noun form for ``n``: (1 сдача, 2 сдачи, 5 сдач)."""
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return forms[0]
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return forms[1]
    return forms[2]


NOUNS: dict[str, tuple[str, str, tuple[str, str, str]]] = {
    # key: (English singular, English plural, Russian forms)
    "deal": ("deal", "deals", ("сдача", "сдачи", "сдач")),
    "hand": ("hand", "hands", ("раздача", "раздачи", "раздач")),
    "ace": ("ace", "aces", ("туз", "туза", "тузов")),
    "test": ("test", "tests", ("тест", "теста", "тестов")),
    "cut": ("cut", "cuts", ("съём", "съёма", "съёмов")),
    "shuffle": ("shuffle", "shuffles", ("тасовка", "тасовки", "тасовок")),
}


def counted(n: int, noun: str, lang: str) -> str:
    """``n`` with its noun: "225 deals", "225 сдач"."""
    singular, plural, forms = NOUNS[noun]
    word = (singular if n == 1 else plural) if lang == "en" else ru_plural(n, forms)
    return f"{number(n, lang)} {word}"
