"""Who may read the console: once reader tokens are configured, a reader's token, as
``Authorization: Bearer <token>``, or in the ``console_token`` cookie. The dealer's token is
refused (403): the console only reads, and a write credential has no place in a browser's
cookie jar. ``/api/health`` answers anyone, for a proxy's or load balancer's health check.

A browser's EventSource sends no headers, so a page is opened once with ``?token=<token>``:
the answer is a redirect to the same address without it, setting an HttpOnly, SameSite=Lax
cookie (Secure when the console serves TLS itself), so the token leaves the address bar.
The first address, with the token, is still in the browser's history and in the access log
of any proxy in between (docs/operations/console.md says how to keep it out of them).
"""

from __future__ import annotations

from typing import Final

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from yarl import URL

from pricing.server.auth import Role, TokenStore, parse_bearer

__all__ = ["COOKIE", "OPEN_PATHS", "access_middleware"]

COOKIE: Final = "console_token"
#: What answers without a token.
OPEN_PATHS: Final = frozenset({"/api/health"})


def access_middleware(tokens: TokenStore, *, tls: bool) -> Middleware:
    """The middleware refusing a request without a reader's token (401) or with the dealer's
    (403), when tokens are required (re-read on SIGHUP with the gRPC port's)."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not tokens.reader_required or request.path in OPEN_PATHS:
            return await handler(request)
        from_query = request.query.get("token")
        header = request.headers.get("Authorization")
        given = (parse_bearer(header) if header else None) or from_query
        given = given or request.cookies.get(COOKIE)
        role = tokens.role_of(given) if given else None
        if given is None or role is None:
            raise web.HTTPUnauthorized(
                text="a reader token is needed: Authorization: Bearer <token>, or ?token=",
                headers={"WWW-Authenticate": 'Bearer realm="pricing console"'},
            )
        if role is Role.DEALER:
            raise web.HTTPForbidden(
                text="the console is read-only: open it with a reader token, not the dealer's"
            )
        if from_query is not None:
            query = request.rel_url.query.copy()
            del query["token"]
            # the same page, as a path of this server: "//host/x" would leave for another
            # site (a redirect to a path starting with two slashes is to that host)
            here = URL.build(path="/" + request.path.lstrip("/"), query=query)
            redirect = web.HTTPSeeOther(here)
            redirect.set_cookie(COOKIE, given, httponly=True, samesite="Lax", secure=tls)
            raise redirect
        return await handler(request)

    return check
