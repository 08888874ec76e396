"""TLS and mutual TLS: the server's certificates (reloadable) and a client's credentials.

The server serves TLS only once given a certificate and key; with a client CA it also requires
every client to present a certificate signed by that CA (mutual TLS). ``ServerCertificates``
reads the files, checks them with the standard library's ``ssl`` (a certificate that does not
match its key is refused at start, not at the first handshake), and hands gRPC a dynamic
configuration: ``reload`` (the server calls it on SIGHUP) reads the files again and the next
handshake uses the new certificates, with no restart and no connection dropped. The web
console's HTTP server gets a standard ``ssl.SSLContext`` that follows ``reload`` the same way
(``ssl_context``).
"""

from __future__ import annotations

import ssl
import threading
from pathlib import Path

import grpc

__all__ = ["ServerCertificates", "TlsError", "channel_credentials"]


class TlsError(ValueError):
    """A certificate, key or CA file that cannot be used."""


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise TlsError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None


class ServerCertificates:
    """The server's certificate chain and key, and the client CA of mutual TLS (if any)."""

    def __init__(self, cert: Path, key: Path, client_ca: Path | None = None) -> None:
        self.cert = cert
        self.key = key
        self.client_ca = client_ca
        self._lock = threading.Lock()
        self._current, self._http = self._load()
        self._pending: grpc.ServerCertificateConfiguration | None = None

    def _context(self) -> ssl.SSLContext:
        """The files as a standard library server context: loading them is also what checks
        them (a certificate that does not match its key is refused here, not at the first
        handshake)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            context.load_cert_chain(self.cert, self.key)
        except (ssl.SSLError, OSError) as exc:
            raise TlsError(
                f"--tls-cert {self.cert} and --tls-key {self.key} are not a usable pair: {exc}"
            ) from None
        if self.client_ca is not None:
            try:
                context.load_verify_locations(cafile=self.client_ca)
            except (ssl.SSLError, OSError) as exc:
                raise TlsError(
                    f"--tls-client-ca {self.client_ca} holds no usable CA certificate: {exc}"
                ) from None
            context.verify_mode = ssl.CERT_REQUIRED
        return context

    def _load(self) -> tuple[grpc.ServerCertificateConfiguration, ssl.SSLContext]:
        """The files checked and read: gRPC's configuration, and the web console's context."""
        context = self._context()
        pair = (_read(self.key, "TLS key"), _read(self.cert, "TLS certificate"))
        ca = _read(self.client_ca, "client CA") if self.client_ca is not None else None
        return grpc.ssl_server_certificate_configuration([pair], root_certificates=ca), context

    def reload(self) -> None:
        """Read the files again; the next handshake uses them. On ``TlsError`` the
        certificates in force stay as they were."""
        config, context = self._load()
        with self._lock:
            self._pending, self._http = config, context

    def ssl_context(self) -> ssl.SSLContext:
        """A server context for an HTTP server (asyncio's) that follows ``reload``: at each
        handshake its SNI callback, which OpenSSL calls for every ClientHello, hands the
        connection the context of the files as last read."""
        outer = self._context()

        def follow(connection: ssl.SSLObject | ssl.SSLSocket, _name: str | None, _: object) -> None:
            with self._lock:
                connection.context = self._http

        outer.sni_callback = follow
        return outer

    def _fetch(self) -> grpc.ServerCertificateConfiguration | None:
        # Called by gRPC (from its own threads) before each handshake: None keeps the current
        # configuration.
        with self._lock:
            pending, self._pending = self._pending, None
        return pending

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.dynamic_ssl_server_credentials(
            self._current,
            self._fetch,  # type: ignore[arg-type]  # None is allowed: "keep the current one"
            require_client_authentication=self.client_ca is not None,
        )


def channel_credentials(
    ca: Path | None = None, cert: Path | None = None, key: Path | None = None
) -> grpc.ChannelCredentials:
    """A client's TLS credentials: ``ca`` verifies the server (None: the system's roots);
    ``cert`` and ``key`` are the client's own certificate, for a server requiring mutual TLS."""
    if (cert is None) != (key is None):
        raise TlsError("a client certificate needs its key, and a key its certificate")
    return grpc.ssl_channel_credentials(
        root_certificates=_read(ca, "TLS CA") if ca is not None else None,
        private_key=_read(key, "TLS key") if key is not None else None,
        certificate_chain=_read(cert, "TLS certificate") if cert is not None else None,
    )
