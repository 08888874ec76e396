"""The pre-rendered per-table gauges say exactly what prometheus_client's own Gauge would."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Gauge, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics

from pricing.server import metrics_http
from pricing.server.metrics_http import MetricsHTTPServer, _with_extra
from pricing.server.metrics_tables import TableGauge

labels = st.text(min_size=1, max_size=12)
values = st.one_of(st.floats(allow_nan=False), st.integers(-(2**40), 2**40).map(float))


@given(st.dictionaries(st.tuples(labels, labels), values, max_size=20), st.data())
def test_a_table_gauge_renders_as_the_library_gauge(
    series: dict[tuple[str, str], float], data: st.DataObject
) -> None:
    registry = CollectorRegistry()
    theirs = Gauge("g", "Doc.", ("table_id", "bet"), registry=registry)
    ours = TableGauge("g", "Doc.", ("table_id", "bet"))
    for (table, bet), value in series.items():
        theirs.labels(table, bet).set(value)
        ours.labels(table, bet).set(value)
    again = data.draw(st.dictionaries(st.sampled_from(sorted(series)), values)) if series else {}
    for (table, bet), value in again.items():  # a series set again: its line re-rendered
        theirs.labels(table, bet).set(value)
        ours.labels(table, bet).set(value)
    series.update(again)
    gone = data.draw(st.lists(st.sampled_from(sorted(series)), unique=True)) if series else []
    for table, bet in gone:
        theirs.remove(table, bet)
        ours.remove(table, bet)
    for key, value in series.items():  # each value read back from its rendered line
        assert ours.value(*key) == (None if key in gone else value)
    expected = generate_latest(registry).decode()
    if len(series) == len(gone):  # prometheus_client still prints the family's header
        assert ours.text() == ""
    else:
        assert sorted(ours.text().splitlines()) == sorted(expected.splitlines())


def test_a_table_leaves_with_all_its_series_rendered_or_not() -> None:
    z = TableGauge("z", "Doc.", ("table_id", "bet"))
    z.labels("t1", "LOW").set(1.5)
    z.labels("t2", "LOW").set(2.5)
    assert z.text()  # rendered
    z.labels("t1", "HIGH").set(-0.5)  # pending
    z.remove_table("t1")
    assert z.value("t1", "LOW") is z.value("t1", "HIGH") is None
    assert z.text().splitlines()[2:] == ['z{bet="LOW",table_id="t2"} 2.5']


def test_extra_families_go_before_the_openmetrics_end() -> None:
    registry = CollectorRegistry()
    Gauge("a", "A.", registry=registry).set(1)
    page = _with_extra(openmetrics(registry), b"b 2.0\n")
    assert page.endswith(b"b 2.0\n# EOF\n")
    assert _with_extra(b"a 1.0\n", b"b 2.0\n") == b"a 1.0\nb 2.0\n"


class _Clock:
    """time.monotonic for pricing.server.metrics_http: each render "takes" ``render`` seconds."""

    def __init__(self, render: float) -> None:
        self.now, self.render, self.reads = 100.0, render, 0

    def __call__(self) -> float:
        self.reads += 1
        if self.reads % 2 == 0:  # the read after rendering
            self.now += self.render
        return self.now


def _page_server(series: int) -> tuple[MetricsHTTPServer, list[int]]:
    registry = CollectorRegistry()
    gauge = Gauge("g", "Doc.", ("table_id",), registry=registry)
    for i in range(series):
        gauge.labels(f"table-{i:06d}").set(i)
    renders: list[int] = []
    server = MetricsHTTPServer(("127.0.0.1", 0), registry, extra=lambda: renders.append(1) or b"")
    return server, renders


@pytest.mark.parametrize(
    ("series", "render", "renders"),
    [
        (10, 0.2, 2),  # small and slow (a busy machine): fresh at every scrape
        (10, 0.0, 2),  # small and fast
        (3_000, 0.2, 2),  # under 256 KiB, slow: fresh at every scrape all the same
        (10_000, 0.0, 1),  # over 256 KiB: reused for a second however fast
        (10_000, 3.0, 1),  # over 256 KiB and slow: reused for twice its render time
    ],
)
def test_a_page_is_reused_only_when_large_or_slow_for_its_size(
    monkeypatch: pytest.MonkeyPatch, series: int, render: float, renders: int
) -> None:
    clock = _Clock(render)
    monkeypatch.setattr(metrics_http.time, "monotonic", clock)
    server, done = _page_server(series)
    try:
        first, _ = server.page("")
        clock.now += 0.1  # the next scrape, a tenth of a second later
        second, _ = server.page("")
        assert len(done) == renders, f"{len(first):,} B page rendered {len(done)} times"
        assert second == first
    finally:
        server.server_close()
