"""Who may read the web console, against a real server with reader and dealer tokens: nothing
without a reader token (401 naming the Bearer scheme), a token once in the address answered
303 to the same address without it and an HttpOnly, SameSite cookie (Secure under TLS only),
the cookie or the Bearer header let in, a wrong token refused, no token in the server's log,
and a dealer's token refused: the console is read-only, a reader's token is what it takes.
"""

from __future__ import annotations

import http.client
import ssl
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

from pricing.v1 import pricing_pb2 as pb
from tests.support.certs import CA
from tests.support.server import ServerProcess, start_server

DEALER = "console-dealer-token-0123456789abcdef"
READER = "console-reader-token-0123456789abcdef"
WRONG = "console-wrong-token-0123456789abcdefg"
COOKIE = "console_token"
TABLE = "access-table"
EVENTS = f"/api/tables/{TABLE}/events"
#: A page, the JSON, a script, a table's page and its event stream.
PATHS = ("/", "/api/tables", "/static/console.js", f"/tables/{TABLE}", EVENTS)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: str


def token_files(folder: Path) -> tuple[str, str]:
    """The --dealer-tokens-file and --reader-tokens-file arguments of files in ``folder``."""
    (folder / "dealers").write_text(f"{DEALER}\n")
    (folder / "readers").write_text(f"{READER}\n")
    return (
        f"--dealer-tokens-file={folder / 'dealers'}",
        f"--reader-tokens-file={folder / 'readers'}",
    )


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = start_server(
        "--console-port=0",
        "--console-max-requests-per-second=1e5",
        *token_files(tmp_path_factory.mktemp("tokens")),
    )
    as_dealer = (("authorization", f"Bearer {DEALER}"),)
    process.dealer().OpenTable(
        pb.OpenTableRequest(table_id=TABLE, game=pb.GAME_HILO), metadata=as_dealer
    )
    yield process
    assert process.stop() == 0, process.log()


def get(
    server: ServerProcess,
    path: str,
    *,
    bearer: str | None = None,
    cookie: str | None = None,
    context: ssl.SSLContext | None = None,
) -> Answer:
    """GET ``path`` (no redirect followed); an event stream's body is left unread."""
    assert server.console_port is not None
    connection: http.client.HTTPConnection = (
        http.client.HTTPConnection("127.0.0.1", server.console_port, timeout=10)
        if context is None
        else http.client.HTTPSConnection(
            "127.0.0.1", server.console_port, timeout=10, context=context
        )
    )
    headers = {}
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    if cookie is not None:
        headers["Cookie"] = f"{COOKIE}={cookie}"
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        streaming = response.headers.get("Content-Type", "").startswith("text/event-stream")
        body = "" if streaming else response.read().decode()
        return Answer(response.status, response.headers, body)
    finally:
        connection.close()


def the_cookie(answer: Answer) -> tuple[str, dict[str, object]]:
    """The console cookie an answer sets: its value and its attributes."""
    (header,) = answer.headers.get_all("Set-Cookie") or [""]
    jar: SimpleCookie = SimpleCookie()
    jar.load(header)
    assert COOKIE in jar, header
    morsel = jar[COOKIE]
    return morsel.value, {k: morsel[k] for k in ("httponly", "samesite", "secure", "path")}


@pytest.mark.parametrize("path", PATHS)
def test_without_a_token_each_path_is_401_naming_the_bearer_scheme(
    guarded: ServerProcess, path: str
) -> None:
    answer = get(guarded, path)
    assert answer.status == 401, (path, answer.status, answer.body)
    assert answer.headers["WWW-Authenticate"].startswith("Bearer"), answer.headers
    assert "reader token" in answer.body


def test_a_wrong_token_is_401_however_it_comes(guarded: ServerProcess) -> None:
    for answer in (
        get(guarded, "/", bearer=WRONG),
        get(guarded, "/", cookie=WRONG),
        get(guarded, f"/?token={WRONG}"),
        get(guarded, f"{EVENTS}?token={WRONG}"),
    ):
        assert answer.status == 401, answer
        assert "Set-Cookie" not in answer.headers
        assert WRONG not in answer.body


@pytest.mark.parametrize(
    ("asked", "sent_to"),
    [
        (f"/?token={READER}", "/"),
        (f"/api/tables?game=hilo&token={READER}", "/api/tables?game=hilo"),
        (f"/tables/{TABLE}?token={READER}", f"/tables/{TABLE}"),
        (f"{EVENTS}?token={READER}", EVENTS),  # an EventSource's address, opened once so
    ],
)
def test_a_token_in_the_address_is_answered_303_without_it_and_a_cookie(
    guarded: ServerProcess, asked: str, sent_to: str
) -> None:
    answer = get(guarded, asked)
    assert answer.status == 303, (asked, answer.status, answer.body)
    location = urllib.parse.urlsplit(answer.headers["Location"])
    assert (location.path, location.query) == tuple(urllib.parse.urlsplit(sent_to)[2:4])
    assert READER not in answer.headers["Location"]
    value, attributes = the_cookie(answer)
    assert value == READER
    assert attributes["httponly"] is True
    assert str(attributes["samesite"]).lower() in ("strict", "lax")
    assert not attributes["secure"], "Secure without TLS: a browser would never send it back"


@pytest.mark.parametrize("path", PATHS)
def test_the_cookie_and_the_bearer_header_each_let_a_reader_in(
    guarded: ServerProcess, path: str
) -> None:
    for answer in (get(guarded, path, cookie=READER), get(guarded, path, bearer=READER)):
        assert answer.status == 200, (path, answer.status, answer.body)
        assert "Set-Cookie" not in answer.headers  # only a token in the address sets one


def test_no_token_reaches_the_servers_log(guarded: ServerProcess) -> None:
    for token in (READER, WRONG, DEALER):
        get(guarded, f"/api/tables?token={token}")
        get(guarded, "/api/tables", bearer=token)
        get(guarded, "/", cookie=token)
    log = guarded.log()
    assert log, "the server logged nothing: the check below would prove nothing"
    for token in (READER, WRONG, DEALER):
        assert token not in log


def test_under_tls_the_cookie_is_secure(tmp_path: Path) -> None:
    ca = CA(tmp_path)
    pair = ca.issue("console-server", server=True)
    server = start_server(
        "--console-port=0",
        f"--tls-cert={pair.cert}",
        f"--tls-key={pair.key}",
        *token_files(tmp_path),
    )
    try:
        context = ssl.create_default_context(cafile=str(ca.path))
        answer = get(server, f"/?token={READER}", context=context)
        assert answer.status == 303, (answer.status, answer.body)
        value, attributes = the_cookie(answer)
        assert value == READER
        assert attributes["secure"] is True and attributes["httponly"] is True
        assert get(server, "/", cookie=READER, context=context).status == 200
    finally:
        assert server.stop() == 0, server.log()


@pytest.mark.parametrize("how", ["bearer", "cookie", "address"])
def test_a_dealer_token_is_refused_403_the_console_being_read_only(
    guarded: ServerProcess, how: str
) -> None:
    """A dealer's token opens tables and moves cards: it has no business in a browser's
    cookie jar or address bar, so the console takes a reader's token only."""
    for path in ("/", "/api/tables", EVENTS):
        if how == "address":
            answer = get(guarded, f"{path}?token={DEALER}")
        elif how == "cookie":
            answer = get(guarded, path, cookie=DEALER)
        else:
            answer = get(guarded, path, bearer=DEALER)
        assert answer.status == 403, (how, path, answer.status)
        assert "Set-Cookie" not in answer.headers
        assert "read-only" in answer.body and "reader token" in answer.body, answer.body
        assert DEALER not in answer.body


def test_health_answers_without_a_token_for_a_proxys_checks(guarded: ServerProcess) -> None:
    answer = get(guarded, "/api/health")
    assert answer.status == 200, answer
    assert '"SERVING"' in answer.body


def test_the_token_redirect_never_leaves_for_another_site(guarded: ServerProcess) -> None:
    answer = get(guarded, f"//evil.example/x?a=1&token={READER}")
    assert answer.status == 303
    assert answer.headers["Location"] == "/evil.example/x?a=1", answer.headers["Location"]
