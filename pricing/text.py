"""Reading text a client sent: table ids, option and bet names, and quoting a bad value back.

Every message and log line that repeats a client's value goes through ``quoted``, so a
megabyte of junk is answered with a short prefix and its length, never echoed whole (a long
error message would otherwise overflow gRPC's metadata limit on the way back, and flood the
log). Names are compared after normalisation (surrounding blanks dropped, upper case), but only
plain printable ASCII is normalised: ``"hıgh"`` or ``"A\u017f"`` (dotless i, long s) would
upper-case to ``HIGH`` and ``AS``, and are refused instead.

>>> quoted("x" * 100)
"'xxxxxxxxxxxxxxxxxxxxxxxx'… (100 characters)"
>>> check_table_id("hilo-1:main")
'hilo-1:main'
>>> ascii_name("bet", " high ")
'HIGH'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Final

from pricing.errors import InvalidInput, InvalidOption

__all__ = [
    "BLANKS",
    "MAX_TABLE_ID",
    "QUOTE_CHARS",
    "ascii_name",
    "check_table_id",
    "distinct_names",
    "fraction_text",
    "key_path",
    "quoted",
]

#: How much of a bad value a message or log line repeats.
QUOTE_CHARS: Final = 24
MAX_TABLE_ID: Final = 64
_TABLE_ID: Final = re.compile(r"[A-Za-z0-9._:-]{1,64}")
#: Blanks a name or card may be surrounded by (a pasted line's newline, a tab); nothing else.
BLANKS: Final = " \t\r\n"
_PRINTABLE: Final = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*")


def fraction_text(x: Fraction) -> str:
    """``"numerator/denominator"``, however many digits they have: an exact report's mean
    over a depleting shoe's rounds can pass the 4,300 digits Python writes an int in at once.

    >>> fraction_text(Fraction(10**5000 + 1, 3)).endswith("0001/3"), fraction_text(Fraction(1))
    (True, '1/1')
    """
    return f"{_digits(x.numerator)}/{_digits(x.denominator)}"


#: Digits written at a time (under ``sys.get_int_max_str_digits()``'s default of 4,300).
_CHUNK: Final = 10**2000


def _digits(n: int) -> str:
    if -_CHUNK < n < _CHUNK:
        return str(n)
    high, low = divmod(abs(n), _CHUNK)
    return ("-" if n < 0 else "") + _digits(high) + str(low).zfill(2000)


def quoted(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of ``value``, cut to its first ``limit`` characters (and its length) when long.

    >>> quoted("AS\\x1f")
    "'AS\\\\x1f'"
    >>> quoted(b"abc")
    "b'abc'"
    """
    if isinstance(value, str | bytes) and len(value) > limit:
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{value[:limit]!r}… ({len(value)} {unit})"
    text = repr(value)
    return text if len(text) <= 4 * limit else text[: 4 * limit] + "…"


def check_table_id(table_id: str) -> str:
    """``table_id`` if it is 1–64 characters of ``A–Z a–z 0–9 . _ - :``; ``InvalidInput``
    quoting it otherwise. The one rule every RPC that takes a table id applies.

    >>> check_table_id("a b")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidInput: invalid table_id 'a b': use 1-64 characters of A-Z a-z 0-9 . _ - :
    """
    if _TABLE_ID.fullmatch(table_id) is None:
        if not table_id:
            raise InvalidInput(
                f"table_id must not be empty: use 1-{MAX_TABLE_ID} characters of "
                "A-Z a-z 0-9 . _ - :",
                field="table_id",
            )
        raise InvalidInput(
            f"invalid table_id {quoted(table_id)}: use 1-{MAX_TABLE_ID} characters of "
            "A-Z a-z 0-9 . _ - :",
            field="table_id",
        )
    return table_id


def ascii_name(kind: str, text: str) -> str:
    """A name (a bet, a paytable entry) as compared: blanks around it dropped, upper case.
    Only printable ASCII is accepted, so no look-alike upper-cases into a real name.

    >>> ascii_name("bet", "h\\u0131gh")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidInput: invalid bet 'hıgh': use printable ASCII letters, e.g. 'HIGH'
    """
    name = text.strip(BLANKS)
    if _PRINTABLE.fullmatch(name) is None or len(name) > MAX_TABLE_ID:
        raise InvalidInput(
            f"invalid {kind} {quoted(text)}: use printable ASCII letters, e.g. 'HIGH'"
        )
    return name.upper()


def key_path(field: str, key: str) -> str:
    """The path of a map entry in a request, as a ``BadRequest`` names it.

    >>> key_path("higher_lower.bets", "ace")
    'higher_lower.bets["ace"]'
    """
    return f'{field}["{key}"]'


def distinct_names(kind: str, names: Iterable[str], field: str | None = None) -> dict[str, str]:
    """Each given name's normalised form, by the name as sent; ``InvalidOption`` if two of
    them collide (``"triple"`` and ``"TRIPLE"``), instead of silently keeping one. ``field``:
    the request's map the names are the keys of, for the refusal to name (the second key of
    a collision; the map itself for a key that is no name, which may be too long to repeat).

    >>> distinct_names("bet", ["triple", "nine"])
    {'triple': 'TRIPLE', 'nine': 'NINE'}
    >>> distinct_names("outcome", ["perfect", "PERFECT "])
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: outcome 'PERFECT ' is also given as 'perfect': send each once
    """
    seen: dict[str, str] = {}
    out: dict[str, str] = {}
    for given in names:
        try:
            name = ascii_name(kind, given)
        except InvalidInput as exc:
            exc.field = field
            raise
        if name in seen:
            raise InvalidOption(
                f"{kind} {quoted(given)} is also given as {quoted(seen[name])}: send each once",
                field=None if field is None else key_path(field, given),
            )
        seen[name] = given
        out[given] = name
    return out
