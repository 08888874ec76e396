"""Where the server is and how to reach it: ``default_target`` and ``Connection`` (the token
sent with each call, and TLS)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import grpc

from pricing.tls import channel_credentials

DEFAULT_TARGET: Final = "127.0.0.1:50051"


def default_target() -> str:
    """``$PRICING_SERVER`` or ``127.0.0.1:50051``."""
    return os.environ.get("PRICING_SERVER", DEFAULT_TARGET)


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


def _path(value: str | os.PathLike[str] | None, env: str) -> Path | None:
    chosen = value if value is not None else os.environ.get(env)
    return Path(chosen) if chosen else None


@dataclass(frozen=True)
class Connection:
    """How a client reaches the server: its token and, for TLS, the CA that signed the
    server's certificate (and the client's own certificate and key, for mutual TLS). Each
    defaults to the environment: ``$PRICING_TOKEN`` (else ``$PRICING_DEALER_TOKEN``),
    ``$PRICING_TLS_CA``, ``$PRICING_TLS_CERT``, ``$PRICING_TLS_KEY``; TLS is used once any
    of the three is set. ``tls_server_name`` (``$PRICING_TLS_SERVER_NAME``) is the name the
    server's certificate is checked against instead of the target's host: needed when the
    target lists several replicas (``ipv4:10.0.0.1:50051,10.0.0.2:50051``), which gRPC would
    otherwise check as one host name."""

    token: str | None = None
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_server_name: str | None = None

    @classmethod
    def resolve(
        cls,
        token: str | None = None,
        tls_ca: str | os.PathLike[str] | None = None,
        tls_cert: str | os.PathLike[str] | None = None,
        tls_key: str | os.PathLike[str] | None = None,
        tls_server_name: str | None = None,
    ) -> Connection:
        if token is None:
            token = os.environ.get("PRICING_TOKEN") or os.environ.get("PRICING_DEALER_TOKEN")
        if tls_server_name is None:
            tls_server_name = os.environ.get("PRICING_TLS_SERVER_NAME")
        return cls(
            token or None,
            _path(tls_ca, "PRICING_TLS_CA"),
            _path(tls_cert, "PRICING_TLS_CERT"),
            _path(tls_key, "PRICING_TLS_KEY"),
            tls_server_name or None,
        )

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return _metadata(self.token)

    @property
    def options(self) -> tuple[tuple[str, str], ...]:
        """The channel's options: the TLS server name, when one is set."""
        if self.tls_server_name is None:
            return ()
        return (("grpc.ssl_target_name_override", self.tls_server_name),)

    def credentials(self) -> grpc.ChannelCredentials | None:
        """TLS credentials, or None for a plaintext channel."""
        if self.tls_ca is None and self.tls_cert is None and self.tls_key is None:
            return None
        return channel_credentials(self.tls_ca, self.tls_cert, self.tls_key)
