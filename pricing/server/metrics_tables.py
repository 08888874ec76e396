"""Gauges with one series per table, kept as rendered exposition lines.

A server with 10,000 blackjack tables has 30,000 per-table series. prometheus_client renders
every sample of every scrape in Python (about 11 µs each: a third of a second for the page),
holding the GIL all the while, and the feed's latency pays for it. These series change when
their table does, so each one is rendered as its line of text by the first scrape after it
changed, and a scrape otherwise only joins the lines. ``TableGauge`` keeps the few methods
of ``prometheus_client.Gauge`` the service uses (``labels(...).set``,
``set_to_current_time``, ``remove``), and ``remove_table``.

>>> rtp = TableGauge("pricing_side_bet_rtp", "RTP.", ("table_id", "bet"))
>>> rtp.labels("t1", "PAIRS").set(0.95)
>>> print(rtp.text(), end="")
# HELP pricing_side_bet_rtp RTP.
# TYPE pricing_side_bet_rtp gauge
pricing_side_bet_rtp{bet="PAIRS",table_id="t1"} 0.95
>>> rtp.remove("t1", "PAIRS"); rtp.value("t1", "PAIRS") is None
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from prometheus_client.utils import floatToGoString

__all__ = ["TableGauge"]


def _number(value: float) -> str:
    """The library's own rendering of a sample value (Go's float format: ``1e+06``)."""
    text: str = floatToGoString(value)  # type: ignore[no-untyped-call]
    return text


def _escape(value: str) -> str:
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")


class _Child:
    __slots__ = ("_gauge", "_key")

    def __init__(self, gauge: TableGauge, key: tuple[str, ...]) -> None:
        self._gauge, self._key = gauge, key

    def set(self, value: float) -> None:
        self._gauge._set(self._key, float(value))

    def set_to_current_time(self) -> None:
        self.set(time.time())


class TableGauge:
    """A gauge of many labelled series. A series is held as its line without the metric's
    name (``{table_id="t1"} 0.95``), the name put back at each scrape by the join: one string
    a series, since a server with many idle tables holds little else per table. A ``set``
    only notes the value (a baccarat card sets 25 series: rendering each as it is set was 55
    µs of the card's acknowledgement); the next scrape renders the series set since the last
    one, and joins every line."""

    def __init__(
        self, name: str, documentation: str, labelnames: Sequence[str], *, enabled: bool = True
    ) -> None:
        self.name = name
        #: False: every ``set`` is ignored and the family is never exported (a server asked for
        #: no per-table series).
        self.enabled = enabled
        self._labelnames = tuple(labelnames)
        self._header = f"# HELP {name} {documentation}\n# TYPE {name} gauge\n"
        self._lines: dict[tuple[str, ...], str] = {}
        #: Values set since the last scrape, not rendered yet.
        self._pending: dict[tuple[str, ...], float] = {}
        self._lock = threading.Lock()  # the scrape thread reads while the event loop writes

    def labels(self, *values: str) -> _Child:
        if len(values) != len(self._labelnames):
            raise ValueError(f"{self.name} takes labels {self._labelnames}, got {values!r}")
        return _Child(self, tuple(map(str, values)))

    def _set(self, key: tuple[str, ...], value: float) -> None:
        if self.enabled:
            with self._lock:
                self._pending[key] = value

    def _render(self) -> None:
        """The pending values into their lines (under the lock)."""
        for key, value in self._pending.items():
            held = self._lines.get(key)
            if held is None:
                pairs = sorted(zip(self._labelnames, key, strict=True))  # as prometheus orders
                labels = ",".join(f'{n}="{_escape(v)}"' for n, v in pairs)
                series = f"{{{labels}}} "
            else:  # the series' labels as last rendered (a value has no space in it)
                series = held[: held.rindex(" ") + 1]
            self._lines[key] = f"{series}{_number(value)}\n"
        self._pending.clear()

    def remove(self, *values: str) -> None:
        key = tuple(map(str, values))
        with self._lock:
            self._lines.pop(key, None)
            self._pending.pop(key, None)

    def remove_table(self, table_id: str) -> None:
        """Every series of ``table_id`` (its first label): a scan of them all, for the rare
        table that leaves with series whose other labels are not at hand."""
        with self._lock:
            for held in (self._lines, self._pending):
                for key in [key for key in held if key[0] == table_id]:
                    del held[key]

    def value(self, *values: str) -> float | None:
        key = tuple(map(str, values))
        with self._lock:
            if key in self._pending:
                return self._pending[key]
            line = self._lines.get(key)
        return None if line is None else float(line[line.rindex(" ") + 1 :])

    def text(self) -> str:
        """The family in the text exposition format (the same lines in OpenMetrics)."""
        with self._lock:
            self._render()
            lines = list(self._lines.values())
        return self._header + self.name + self.name.join(lines) if lines else ""
