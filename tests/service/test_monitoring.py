"""The monitoring kit against a running server: every metric the Grafana dashboard
(deploy/grafana/pricing.json) and the Prometheus alerts (deploy/prometheus/alerts.yml) use is
exported, and the exposition is tidy (no ``_created`` series, process metrics, go-grpc-prometheus
message counters)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time

import grpc
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from pricing.v1 import pricing_pb2 as pb
from tests.support import ROOT
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import Feed, metric, scraped

DASHBOARD = ROOT / "deploy" / "grafana" / "pricing.json"
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
ALERT_TESTS = ROOT / "deploy" / "prometheus" / "alerts_test.yml"

#: ``grpc_type`` values go-grpc-prometheus writes: its ``grpcType`` constants (util.go of
#: github.com/grpc-ecosystem/go-grpc-prometheus).
GO_GRPC_TYPES = {
    (False, False): "unary",
    (True, False): "client_stream",
    (False, True): "server_stream",
    (True, True): "bidi_stream",
}  # by (client streaming, server streaming), as its typeFromMethodInfo

#: ``grpc_code`` values it writes: grpc-go's ``codes.Code.String()`` (codes/code_string.go of
#: github.com/grpc/grpc-go), one per status code; its ``InitializeMetrics`` gives every method a
#: ``grpc_server_handled_total`` series for each (util.go's ``allCodes``).
GO_GRPC_CODES = frozenset({
    "OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound",
    "AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted",
    "OutOfRange", "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
})  # fmt: skip

#: PromQL words that look like metric names but are not.
_KEYWORDS = frozenset({"and", "or", "unless", "bool", "offset", "inf", "nan"})


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: every identifier left once strings, label
    matchers, ranges and grouping clauses are removed, that is not a function or a keyword.

    >>> sorted(metric_names('histogram_quantile(0.99, sum by (le, grpc_method) '
    ...     '(rate(grpc_server_handling_seconds_bucket{grpc_type="unary"}[$__rate_interval]))) '
    ...     '> on (instance) group_left pricing_tables'))
    ['grpc_server_handling_seconds_bucket', 'pricing_tables']
    """
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    expr = re.sub(r"\{[^}]*\}", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    expr = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    expr = re.sub(r"\b(?:group_left|group_right)\b", "", expr)
    names = set(re.findall(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()", expr))
    return {n for n in names if n.lower() not in _KEYWORDS and not re.fullmatch(r"\d.*", n)}


def dashboard_exprs() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]


def alert_exprs() -> dict[str, str]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return {rule["alert"]: rule["expr"] for group in groups for rule in group["rules"]}


def exported(server: ServerProcess) -> set[str]:
    return {
        sample.name
        for family in text_string_to_metric_families(server.metrics_text())
        for sample in family.samples
    }


def drive(server: ServerProcess, table_id: str) -> None:
    """Every kind of series the kit reads: a blackjack table (side bet RTP, last card, the
    live return of a round), cards by call and on a Feed stream, a watcher stream, a rejected
    feed event, a Quote."""
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=1))
    watcher = Watcher(server.pricing(), table_id)
    while not watcher.next().HasField("player_edge"):  # pricing_player_edge, set once computed
        pass
    feed.expose("KH", pb.CARD_ROLE_PLAYER)
    watcher.next()
    with pytest.raises(grpc.RpcError):
        feed.expose("XX", pb.CARD_ROLE_PLAYER)
    card = pb.ExposeCardRequest(
        table_id=table_id, seq=feed.seq, card="QH", role=pb.CARD_ROLE_PLAYER
    )
    assert len(list(feed.stub.Feed(iter([pb.FeedRequest(expose_card=card)])))) == 1
    with pytest.raises(grpc.RpcError):  # a Feed event refused: no event in it
        list(feed.stub.Feed(iter([pb.FeedRequest()])))
    feed.expose("5D", pb.CARD_ROLE_DEALER)
    feed.end_round()  # the side bets' live return: a round counted
    watcher.cancel()


def test_the_kit_reads_what_it_should() -> None:
    used = set().union(*map(metric_names, dashboard_exprs()))
    assert {
        "grpc_server_handling_seconds_bucket",
        "grpc_server_handled_total",
        "pricing_publish_seconds_bucket",
        "pricing_compute_seconds_bucket",
        "pricing_feed_event_seconds_bucket",
        "pricing_tables",
        "pricing_watchers",
        "pricing_conflated_total",
        "pricing_side_bet_rtp",
        "pricing_live_return_z",
    } <= used
    side_bets = next(
        p for p in json.loads(DASHBOARD.read_text())["panels"] if "side bet RTP" in p["title"]
    )
    steps = side_bets["fieldConfig"]["defaults"]["thresholds"]["steps"]
    assert {"color": "red", "value": 1} in steps  # 100 % marked
    live = next(
        p for p in json.loads(DASHBOARD.read_text())["panels"] if "Live return" in p["title"]
    )
    steps = live["fieldConfig"]["defaults"]["thresholds"]["steps"]
    assert steps == [  # inside ±4 green, beyond red
        {"color": "red", "value": None},
        {"color": "green", "value": -4},
        {"color": "red", "value": 4},
    ]
    alerts = alert_exprs()
    assert set(alerts) == {
        "PricingSideBetPlayerFavourable",
        "PricingSideBetFavourable",
        "PricingSideBetClosedByProtection",
        "PricingShoePlayerFavourable",
        "PricingExposeCardSlow",
        "PricingFeedEventsRejected",
        "PricingTableIdle",
        "PricingReplicaLagging",
        "PricingTablesHeldAside",
        "PricingLiveReturnOff",
    }
    assert metric_names(alerts["PricingReplicaLagging"]) == {"pricing_journal_lag_seconds"}
    assert metric_names(alerts["PricingTablesHeldAside"]) == {"pricing_tables_held_aside"}
    assert metric_names(alerts["PricingTableIdle"]) == {"pricing_table_last_card_timestamp_seconds"}
    assert metric_names(alerts["PricingShoePlayerFavourable"]) == {"pricing_player_edge"}
    assert metric_names(alerts["PricingSideBetClosedByProtection"]) == {
        "pricing_side_bet_closed_rounds_total"
    }
    assert metric_names(alerts["PricingLiveReturnOff"]) == {
        "pricing_live_return_z",
        "pricing_live_return_rounds",
    }


def test_every_metric_the_dashboard_and_alerts_use_is_exported(
    server: ServerProcess, table_id: str
) -> None:
    drive(server, table_id)
    names = exported(server)
    for where, exprs in [("dashboard", dashboard_exprs()), ("alerts", [*alert_exprs().values()])]:
        for expr in exprs:
            missing = metric_names(expr) - names
            assert not missing, f"{where}: {expr!r} reads {sorted(missing)}, not exported"


def test_exposition_has_no_created_series_and_has_process_metrics(server: ServerProcess) -> None:
    text = server.metrics_text()
    assert "_created" not in text
    names = exported(server)
    for name in ("process_resident_memory_bytes", "process_cpu_seconds_total", "python_info"):
        assert name in names, name
    assert metric(server, "process_resident_memory_bytes") == pytest.approx(
        server.rss_bytes(), rel=0.5
    )


def test_message_counters_count_as_go_grpc_prometheus(server: ServerProcess, table_id: str) -> None:
    unary = {"grpc_method": "GetTable", "grpc_type": "unary"}
    stream = {"grpc_method": "WatchTable", "grpc_type": "server_stream"}
    before = {
        (name, kind): metric(server, f"grpc_server_msg_{name}_total", labels)
        for name in ("received", "sent")
        for kind, labels in (("unary", unary), ("stream", stream))
    }
    feed = Feed(server, table_id)
    feed.open()
    pricing = server.pricing()
    for _ in range(3):
        pricing.GetTable(pricing_request(table_id))
    with pytest.raises(grpc.RpcError):
        pricing.GetTable(pricing_request("absent"))  # received, nothing sent
    watcher = Watcher(pricing, table_id)
    watcher.next()
    for card in ["2S", "3S", "4S"]:
        feed.expose(card)
        watcher.next()
    feed.close()
    watcher.next()
    assert watcher.end() == grpc.StatusCode.OK

    def delta(name: str, kind: str) -> float:
        labels = unary if kind == "unary" else stream
        return metric(server, f"grpc_server_msg_{name}_total", labels) - before[(name, kind)]

    assert (delta("received", "unary"), delta("sent", "unary")) == (4, 3)
    deadline = time.monotonic() + 10  # the stream's counters settle as its handler returns
    while delta("sent", "stream") < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (delta("received", "stream"), delta("sent", "stream")) == (1, 5)


Series = dict[tuple[str, frozenset[tuple[str, str]]], float]


def series(server: ServerProcess) -> Series:
    """Every sample on the metrics page: its value by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(server.metrics_text())
        for sample in family.samples
    }


def test_grpc_series_are_labelled_as_go_grpc_prometheus_labels_them(
    server: ServerProcess, table_id: str
) -> None:
    """A dashboard or alert built for go-grpc-prometheus selects ``grpc_type="unary"`` and
    ``grpc_code="InvalidArgument"``: a bad call is counted under those very values, every value
    on the page is one Go writes, and every method has its series before its first call."""
    refused = frozenset({
        "grpc_service": "pricing.v1.DealerService",
        "grpc_method": "ExposeCard",
        "grpc_type": "unary",
        "grpc_code": "InvalidArgument",
    }.items())  # fmt: skip
    key = ("grpc_server_handled_total", refused)
    before = series(server).get(key, 0.0)
    bad = pb.ExposeCardRequest(table_id=table_id, seq=1, card="XX", role=pb.CARD_ROLE_BURN)
    with pytest.raises(grpc.RpcError) as caught:
        server.dealer().ExposeCard(bad)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    # A page rendered just before the call may be served again: read until it is counted.
    after = scraped(lambda: series(server), lambda now: now.get(key, 0.0) > before)
    exposecard = sorted(
        f"{dict(labels)['grpc_type']}/{dict(labels)['grpc_code']}={value:g}"
        for (name, labels), value in after.items()
        if name == "grpc_server_handled_total" and dict(labels)["grpc_method"] == "ExposeCard"
    )
    assert key in after, f"no grpc_server_handled_total with {dict(refused)}: {exposecard}"
    assert after[key] == before + 1

    with pytest.raises(grpc.RpcError):  # a Feed event refused: no event in it
        list(server.dealer().Feed(iter([pb.FeedRequest()])))
    rejected = ("pricing_feed_rejected_total", frozenset({"event": "none"}.items()))
    # Every (event, code) series is there from the start at 0 (so the first refusal shows in
    # increase()); the one refusal is counted under InvalidArgument only.
    feed_codes = scraped(
        lambda: {
            dict(labels)["grpc_code"]: value
            for (name, labels), value in series(server).items()
            if name == rejected[0] and rejected[1] <= labels
        },
        lambda codes: codes.get("InvalidArgument", 0.0) > 0,
    )
    assert {code for code, value in feed_codes.items() if value} == {"InvalidArgument"}
    assert set(feed_codes) == GO_GRPC_CODES, "every code's series is there from the start"

    page = series(server)
    types = {dict(labels)["grpc_type"] for _, labels in page if "grpc_type" in dict(labels)}
    codes = {dict(labels)["grpc_code"] for _, labels in page if "grpc_code" in dict(labels)}
    assert types <= set(GO_GRPC_TYPES.values()), f"not go-grpc-prometheus's: {types}"
    assert codes <= GO_GRPC_CODES, f"not Go's codes.Code.String(): {codes - GO_GRPC_CODES}"

    # Every service the server answers: the pricing ones, health, and reflection under both
    # names (as InitializeMetrics does for every registered service).
    others = [
        ("grpc.health.v1.Health", "Check", (False, False)),
        ("grpc.health.v1.Health", "Watch", (False, True)),
        ("grpc.reflection.v1.ServerReflection", "ServerReflectionInfo", (True, True)),
        ("grpc.reflection.v1alpha.ServerReflection", "ServerReflectionInfo", (True, True)),
    ]
    methods = [
        (service.full_name, method.name, (method.client_streaming, method.server_streaming))
        for service in pb.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    ]
    for service_name, method_name, kind in [*methods, *others]:
        labels = {
            "grpc_service": service_name,
            "grpc_method": method_name,
            "grpc_type": GO_GRPC_TYPES[kind],
        }
        for name in (
            "grpc_server_started_total",
            "grpc_server_msg_received_total",
            "grpc_server_msg_sent_total",
            "grpc_server_handling_seconds_count",
        ):
            assert (name, frozenset(labels.items())) in page, (name, labels)
        for code in GO_GRPC_CODES:
            handled_key = frozenset({**labels, "grpc_code": code}.items())
            assert ("grpc_server_handled_total", handled_key) in page, (labels, code)


def pricing_request(table_id: str) -> pb.GetTableRequest:
    return pb.GetTableRequest(table_id=table_id)


def test_rounds_that_open_with_a_side_bet_favourable_are_counted_by_bet(
    server: ServerProcess, table_id: str
) -> None:
    """A one-deck shoe left with four aces and four kings: the next round deals a pair 3 times
    in 7, so the pair bet opens above 100 %; Royal Match does not (a suited A-K 1 time in 7,
    at 2.5 : 1)."""

    def counted(bet: str) -> float:
        return metric(server, "pricing_side_bet_favourable_rounds_total", {"bet": bet})

    before = {bet: counted(bet) for bet in ("PAIRS", "ROYAL_MATCH")}
    assert before["PAIRS"] >= 0  # every bet's series is there from the start
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, decks=1, blackjack=pb.BlackjackRules(seats=1))
    kept = {"AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC"}
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    for card in [r + s for r in ranks for s in "SHDC" if r + s not in kept]:
        state = feed.expose(card, pb.CARD_ROLE_BURN)
    pairs = next(sb for sb in state.side_bets if sb.bet == "PAIRS")
    assert pairs.player_favourable and not pairs.open  # dealing: the round is closed
    state = feed.end_round()
    assert [sb.bet for sb in state.side_bets if sb.player_favourable] == ["PAIRS"]
    assert counted("PAIRS") == before["PAIRS"]  # open for betting: not dealt yet
    feed.expose("AS", pb.CARD_ROLE_PLAYER)  # round 2's first card: it is dealt favourable
    assert scraped(lambda: counted("PAIRS"), lambda v: v == before["PAIRS"] + 1)
    feed.expose("KS", pb.CARD_ROLE_DEALER)  # the same round: counted once
    assert counted("PAIRS") == before["PAIRS"] + 1
    assert counted("ROYAL_MATCH") == before["ROYAL_MATCH"]


def test_last_card_gauge_follows_each_open_table(server: ServerProcess, table_id: str) -> None:
    labels = {"table_id": table_id}
    t0 = time.time()
    feed = Feed(server, table_id)
    feed.open()

    def last_card() -> float:
        return metric(server, "pricing_table_last_card_timestamp_seconds", labels)

    opened = scraped(last_card, lambda v: v > 0)
    assert t0 - 1 <= opened <= time.time() + 1
    feed.expose("2S")
    assert last_card() >= opened

    def series() -> set[str]:
        return {
            s.name
            for f in text_string_to_metric_families(server.metrics_text())
            for s in f.samples
            if s.labels.get("table_id") == table_id
        }

    feed.close()
    assert "pricing_table_last_card_timestamp_seconds" not in scraped(
        series, lambda names: "pricing_table_last_card_timestamp_seconds" not in names
    )


def test_no_table_metrics_exports_no_per_table_series_and_the_rest() -> None:
    server = start_server("--no-table-metrics")
    try:
        drive(server, "quiet")
        names = exported(server)
        assert not names & {
            "pricing_side_bet_rtp",
            "pricing_table_last_card_timestamp_seconds",
            "pricing_live_return_z",
            "pricing_live_return_rounds",
        }
        assert {"pricing_tables", "pricing_cards_total", "grpc_server_handled_total"} <= names
    finally:
        assert server.stop() == 0, server.log()


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool is not installed")
def test_promtool_accepts_the_rules_and_their_unit_tests_pass() -> None:
    for command in (["check", "rules", str(ALERTS)], ["test", "rules", str(ALERT_TESTS)]):
        done = subprocess.run(["promtool", *command], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
