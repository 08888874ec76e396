"""What keeps one reader of the console from costing the dealer's feed: a request rate per
client, and bad HTTP kept out of the log.

- ``rate_limit``: at most ``--console-max-requests-per-second`` requests a second from one
  client (its token, if it is one of ours, else its address), in bursts of two seconds'
  worth; more are answered 429 naming the flag. Every request of the console's shares the
  feed's event loop, so a script polling as fast as it is answered would otherwise slow every
  card.
- (``listener``: a connection whose answer has not moved for ``--console-idle-seconds`` is
  cut.)
- ``quiet_bad_requests``: aiohttp logs each request it cannot parse as an ERROR with its
  traceback; a client sending them in a loop would fill the log and the disk. They are logged
  as one WARNING line, at most one a minute.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler, Middleware

from pricing.errors import LimitExceeded
from pricing.ratelog import LogBudget
from pricing.server.auth import parse_bearer
from pricing.server.limits import TokenBucket

__all__ = ["MAX_CLIENTS", "quiet_bad_requests", "rate_limit"]

#: Clients whose request rate is remembered; beyond, the longest unseen are forgotten.
MAX_CLIENTS: Final = 4096


def rate_limit(
    rate: float,
    cookie: str,
    refuse: Callable[[LimitExceeded], web.HTTPException],
    known: Callable[[str], bool],
) -> Middleware:
    """The middleware refusing a client's requests beyond ``rate`` a second (``refuse``
    answers and counts the refusal); a client is its token (header or ``cookie``) if ``known``
    says it is one of ours, else its address (a made-up token per request must not buy a
    fresh allowance)."""
    buckets: dict[str, TokenBucket] = {}

    @web.middleware
    async def limit(request: web.Request, handler: Handler) -> web.StreamResponse:
        header = request.headers.get("Authorization")
        token = (parse_bearer(header) if header else None) or request.cookies.get(cookie)
        client = token if token and known(token) else request.remote or ""
        bucket = buckets.pop(client, None) or TokenBucket(rate, 2 * rate)
        buckets[client] = bucket  # the most recently seen last
        if len(buckets) > MAX_CLIENTS:
            del buckets[next(iter(buckets))]
        if not bucket.take():
            raise refuse(
                LimitExceeded(
                    "console-max-requests-per-second", rate, "console requests from one client"
                )
            )
        return await handler(request)

    return limit


class _BadRequests(logging.Filter):
    """aiohttp's ERROR with a traceback for each request it could not parse, made one
    WARNING line, at most one a minute."""

    def __init__(self) -> None:
        super().__init__()
        self.budget = LogBudget(lines=1, seconds=60.0)

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, HttpProcessingError):
            return True
        left_out = self.budget.take()
        if left_out is None:
            return False
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg = "console: a request that is not HTTP refused (400): %s%s"
        more = f" ({left_out} more left out of the log)" if left_out else ""
        record.args = (str(error.message).strip() or type(error).__name__, more)
        record.exc_info = record.exc_text = None
        return True


def quiet_bad_requests() -> Callable[[], None]:
    """Filter aiohttp's server log (``_BadRequests``); the returned function removes it."""
    server_log = logging.getLogger("aiohttp.server")
    bad = _BadRequests()
    server_log.addFilter(bad)
    return lambda: server_log.removeFilter(bad)
