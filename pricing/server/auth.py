"""Who may call what: dealer and reader tokens, checked by the server's interceptor
(``pricing.server.auth_interceptor.AuthInterceptor``).

Two roles. A **dealer** token lets a caller use DealerService (the feed: open tables, expose
cards, close tables) and everything a reader may. A **reader** token lets a caller use
PricingService (GetTable, WatchTable, Quote, Settle, SettlePosition, ListTables, Analyze).
Health and reflection are open to all.

- DealerService needs a dealer token once any dealer token is configured.
- PricingService needs a reader or a dealer token once any reader token is configured.
- No token, or one the server does not know: ``UNAUTHENTICATED``; a reader token on
  DealerService: ``PERMISSION_DENIED``.

Clients send ``authorization: Bearer <token>`` metadata. Tokens come from files (one a line,
blank lines and ``#`` comments ignored; re-read by ``TokenStore.reload``, which the server calls
on SIGHUP) and, for the dealer role, ``PRICING_DEALER_TOKEN``. A token is printable ASCII (no
spaces) of at least 16 characters, checked when loaded. Tokens are compared in constant time
(``hmac.compare_digest`` against every known token of a role, no early exit), never logged and
never repeated in an error.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Final

__all__ = [
    "MIN_TOKEN_LENGTH",
    "Role",
    "TokenError",
    "TokenStore",
    "bearer_token",
    "check_token",
    "read_tokens",
]

MIN_TOKEN_LENGTH: Final = 16
_BEARER: Final = "bearer "


class TokenError(ValueError):
    """A token or tokens file that cannot be used (the server refuses to start, or keeps its
    previous tokens on a reload). The message never contains the token."""


class Role(Enum):
    READER = "reader"
    DEALER = "dealer"


def check_token(token: str, where: str) -> str:
    """``token`` if it can be sent as a bearer token; ``TokenError`` naming ``where`` (not the
    token) otherwise.

    >>> check_token("   ", "PRICING_DEALER_TOKEN")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.server.auth.TokenError: PRICING_DEALER_TOKEN: a token must be at least 16 characters ...
    """
    if len(token) < MIN_TOKEN_LENGTH or not all("!" <= c <= "~" for c in token):
        raise TokenError(
            f"{where}: a token must be at least {MIN_TOKEN_LENGTH} characters of printable "
            "ASCII without spaces"
        )
    return token


def read_tokens(path: Path) -> list[str]:
    """The tokens of a tokens file: one a line, blanks around it dropped, blank lines and
    lines starting with ``#`` ignored. ``TokenError`` names the file and line of a bad one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenError(f"cannot read tokens file {path}: {exc}") from None
    tokens = []
    for number, line in enumerate(text.splitlines(), start=1):
        token = line.strip()
        if token and not token.startswith("#"):
            tokens.append(check_token(token, f"{path} line {number}"))
    if not tokens:
        raise TokenError(f"tokens file {path} holds no token")
    return tokens


def _digest(token: bytes) -> bytes:
    # Fixed-length digests: compare_digest then takes the same time whatever the lengths.
    return hashlib.sha256(token).digest()


@dataclass(frozen=True, slots=True)
class _Tokens:
    dealer: tuple[bytes, ...]
    reader: tuple[bytes, ...]


class TokenStore:
    """The tokens of each role, from ``dealer_file``, ``reader_file`` and ``dealer_token``
    (the one-token shortcut). ``reload`` re-reads the files: all or nothing."""

    def __init__(
        self,
        *,
        dealer_file: Path | None = None,
        reader_file: Path | None = None,
        dealer_token: str | None = None,
    ) -> None:
        self.dealer_file = dealer_file
        self.reader_file = reader_file
        self._dealer_token = (
            check_token(dealer_token, "PRICING_DEALER_TOKEN") if dealer_token is not None else None
        )
        self._tokens = self._load()

    def _load(self) -> _Tokens:
        dealer = read_tokens(self.dealer_file) if self.dealer_file else []
        if self._dealer_token is not None:
            dealer.append(self._dealer_token)
        reader = read_tokens(self.reader_file) if self.reader_file else []
        return _Tokens(
            tuple(_digest(t.encode()) for t in dealer),
            tuple(_digest(t.encode()) for t in reader),
        )

    def reload(self) -> tuple[int, int]:
        """Re-read the tokens files; the number of dealer and reader tokens now in force.
        On ``TokenError`` the tokens in force stay as they were."""
        self._tokens = self._load()
        return len(self._tokens.dealer), len(self._tokens.reader)

    @property
    def dealer_required(self) -> bool:
        return bool(self._tokens.dealer)

    @property
    def reader_required(self) -> bool:
        return bool(self._tokens.reader)

    def role_of(self, token: str) -> Role | None:
        """The role ``token`` carries, or None if it is none of ours (constant time in the
        token: every known digest is compared)."""
        given = _digest(token.encode("utf-8", "replace"))
        tokens = self._tokens
        dealer = _any_equal(given, tokens.dealer)
        reader = _any_equal(given, tokens.reader)
        if dealer:
            return Role.DEALER
        return Role.READER if reader else None


def _any_equal(given: bytes, known: Iterable[bytes]) -> bool:
    found = False
    for digest in known:
        found |= hmac.compare_digest(given, digest)
    return found


def parse_bearer(text: str) -> str | None:
    """The token of an ``Authorization`` value ``Bearer <token>`` (any case), else None.

    >>> parse_bearer("bearer abc "), parse_bearer("Basic abc")
    ('abc', None)
    """
    if text[: len(_BEARER)].lower() != _BEARER:
        return None
    return text[len(_BEARER) :].strip()


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` entry, if the call carries one ("" for
    an authorization entry of another kind)."""
    for key, value in metadata or ():
        if key == "authorization":
            token = parse_bearer(value.decode("latin-1") if isinstance(value, bytes) else value)
            return "" if token is None else token
    return None
