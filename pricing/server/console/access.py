"""Who may read the console: once reader tokens are configured, a reader's or the dealer's
token, as ``Authorization: Bearer <token>``, or in the ``console_token`` cookie.

A browser's EventSource sends no headers, so a page is opened once with ``?token=<token>``:
the answer is a redirect to the same address without it, setting an HttpOnly, SameSite=Strict
cookie (Secure under TLS), so the token leaves the address bar and the history at once.
"""

from __future__ import annotations

from typing import Final

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from pricing.server.auth import TokenStore

__all__ = ["COOKIE", "access_middleware"]

COOKIE: Final = "console_token"
_BEARER: Final = "bearer "


def _bearer(header: str | None) -> str | None:
    if header is None or header[: len(_BEARER)].lower() != _BEARER:
        return None
    return header[len(_BEARER) :].strip()


def access_middleware(tokens: TokenStore, *, tls: bool) -> Middleware:
    """The middleware refusing a request without a reader's token (401), when tokens are
    required (re-read on SIGHUP with the gRPC port's)."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not tokens.reader_required:
            return await handler(request)
        from_query = request.query.get("token")
        given = _bearer(request.headers.get("Authorization")) or from_query
        given = given or request.cookies.get(COOKIE)
        if not given or tokens.role_of(given) is None:
            raise web.HTTPUnauthorized(
                text="a reader token is needed: Authorization: Bearer <token>, or ?token=",
                headers={"WWW-Authenticate": 'Bearer realm="pricing console"'},
            )
        if from_query is not None:
            query = request.rel_url.query.copy()
            del query["token"]
            redirect = web.HTTPSeeOther(request.rel_url.with_query(query))
            redirect.set_cookie(COOKIE, given, httponly=True, samesite="Strict", secure=tls)
            raise redirect
        return await handler(request)

    return check
