// A table's page, live from /api/tables/{id}/events: its cards, every bet's price or odds
// (favourable and closed ones marked), the odds of the round being dealt, the last rounds'
// results, and each bet's payout or RTP over the shoe so far as an inline SVG chart.
"use strict";

(function () {
  const root = document.getElementById("table");
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  const MAX_RESULTS = 20;
  let shoe = null, lastRound = null;
  const series = new Map();  // bet -> [[cards dealt, value], ...] this shoe
  const results = [];

  // Hi-Lo, Goa Gae and Higher/Lower price bets by payout; the RTP of a payout is
  // wins × (100 + payout in hundredths) / (100 × cards left), shown beside it, and a price is
  // favourable when that is over 1, decided on the integers (as the server decides it).
  function priceRows(prices) {
    return prices.map((p) => {
      const payout = p.payout_hundredths / 100;
      const back = p.wins * (100 + p.payout_hundredths), staked = 100 * p.remaining;
      const rtp = p.open && staked ? back / staked : null;
      const tr = row([p.bet, p.wins + "/" + p.remaining, percent(p.probability),
        p.open ? payout.toFixed(2) : "--", rtp === null ? "" : percent(rtp),
        p.open ? (p.clamped ? "open (clamped)" : "open") : "closed"]);
      tr.className = !p.open ? "closed" : back > staked ? "fav" : "";
      return tr;
    });
  }

  function oddsRows(bets) {
    return bets.map((b) => {
      const outcomes = b.outcomes.map((o) =>
        o.name + " " + percent(o.probability) + " pays " + (o.net_payout_hundredths / 100).toFixed(2)
      ).join("; ");
      const status = b.closed_by_protection ? "closed by protection" : b.open ? "open" : "not open";
      const tr = row([b.bet, percent(b.rtp), status, outcomes]);
      tr.className = b.closed_by_protection ? "closed" : b.player_favourable ? "fav" : "";
      return tr;
    });
  }

  function fill(table, head, rows) {
    table.tHead.replaceChildren(row(head.map((h) => el("th", h))));
    table.tBodies[0].replaceChildren(...rows);
  }

  function renderHands(state) {
    const hands = $("hands");
    const lines = [];
    for (const hand of state.hands) lines.push(hand.hand + ": " + hand.cards.join(" "));
    for (const seat of state.seats) {
      if (!seat.cards.length) continue;
      let line = "seat " + seat.seat + ": " + seat.cards.join(" ");
      if (seat.best_action && seat.best_action !== "ACTION_UNSPECIFIED") {
        line += " — best " + seat.best_action.replace(/^ACTION_/, "").toLowerCase();
      }
      lines.push(line);
    }
    hands.replaceChildren(...lines.map((line) => el("div", line)));
  }

  function renderExtra(state) {
    const parts = [];
    const ins = state.insurance;
    if (ins && ins.offered) {
      parts.push(el("div", "insurance: dealer blackjack " + percent(ins.probability) +
        ", RTP " + percent(ins.rtp), ins.player_favourable ? "fav" : ""));
    }
    const dealer = state.dealer_outcomes;
    if (dealer && dealer.up_card) {
      parts.push(el("div", "dealer " + dealer.up_card + ": " +
        dealer.outcomes.map((o) => o.name + " " + percent(o.probability)).join(", ")));
    }
    $("extra").replaceChildren(...parts);
  }

  function remember(state) {
    const ended = state.ended_round;
    if (!ended || !Number(ended.round_id) || ended.round_id === lastRound) return;
    lastRound = ended.round_id;
    let text = "round " + ended.round_id + ": ";
    if (ended.void) text += "void";
    else if (ended.hands.length) text += ended.hands.map((h) => h.hand + " " + h.cards.join(" ")).join(" · ");
    else if (ended.seats.length) text += ended.result_cards.join(" · ");
    else text += ended.result_card || ended.result_cards.join(" · ");
    results.unshift(text);
    results.length = Math.min(results.length, MAX_RESULTS);
    $("results").replaceChildren(...results.map((r) => el("li", r)));
  }

  function record(state) {
    if (state.shoe !== shoe) { shoe = state.shoe; series.clear(); }
    const x = state.exposed.length;
    const points = state.prices.length
      ? state.prices.filter((p) => p.open).map((p) => [p.bet, p.payout_hundredths / 100])
      : state.side_bets.map((b) => [b.bet, b.rtp]);
    for (const [bet, y] of points) {
      if (!series.has(bet)) series.set(bet, []);
      const line = series.get(bet);
      if (line.length && line[line.length - 1][0] === x) line[line.length - 1] = [x, y];
      else line.push([x, y]);
    }
  }

  function chart(state) {
    const svg = $("chart");
    const W = 600, H = 200, P = 28;
    const all = [...series.values()].flat();
    svg.replaceChildren();
    if (!all.length) return;
    const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
    let y0 = Math.min(...ys), y1 = Math.max(...ys);
    if (y1 - y0 < 1e-9) { y0 -= 0.5; y1 += 0.5; }
    const sx = (x) => P + (x - x0) / (x1 - x0) * (W - 2 * P);
    const sy = (y) => H - P - (y - y0) / (y1 - y0) * (H - 2 * P);
    const axis = document.createElementNS(SVG, "path");
    axis.setAttribute("d", `M${P} ${P}V${H - P}H${W - P}`);
    axis.setAttribute("class", "axis");
    svg.appendChild(axis);
    for (const [y, anchor] of [[y0, H - P], [y1, P]]) {
      const label = document.createElementNS(SVG, "text");
      label.setAttribute("x", 2); label.setAttribute("y", anchor);
      label.textContent = state.prices.length ? y.toFixed(2) : percent(y);
      svg.appendChild(label);
    }
    if (!state.prices.length && y0 < 1 && y1 > 1) {  // break-even
      const even = document.createElementNS(SVG, "path");
      even.setAttribute("d", `M${P} ${sy(1)}H${W - P}`);
      even.setAttribute("class", "even");
      svg.appendChild(even);
    }
    const legend = [];
    let i = 0;
    for (const [bet, line] of series) {
      const colour = COLOURS[i++ % COLOURS.length];
      const path = document.createElementNS(SVG, "polyline");
      path.setAttribute("points", line.map(([x, y]) => sx(x) + "," + sy(y)).join(" "));
      path.setAttribute("stroke", colour);
      path.setAttribute("fill", "none");
      svg.appendChild(path);
      const key = el("span", bet);
      key.style.borderColor = colour;
      legend.push(key);
    }
    $("legend").replaceChildren(...legend);
  }

  function render(state) {
    $("game").textContent = gameName(state.game);
    $("shoe").textContent = state.shoe;
    $("round").textContent = state.round_id;
    $("phase").textContent = phaseName(state.phase);
    $("left").textContent = state.cards_remaining;
    $("version").textContent = state.version;
    const edge = state.player_edge;
    $("edge").textContent = edge === undefined || edge === null ? "" : "player edge " + percent(edge, true);
    $("edge").className = edge > 0 ? "fav" : "";
    $("cards").replaceChildren(...state.exposed.map((c) => el("span", c, "card")));
    renderHands(state);
    if (state.prices.length) {
      fill($("bets"), ["bet", "ways", "probability", "pays to 1", "RTP", ""], priceRows(state.prices));
    } else {
      fill($("bets"), ["bet", "RTP", "", "outcomes"], oddsRows(state.side_bets));
    }
    renderExtra(state);
    $("round-section").hidden = !state.round_odds.length;
    fill($("round-odds"), ["bet", "RTP", "", "outcomes"], oddsRows(state.round_odds));
    remember(state);
    record(state);
    chart(state);
  }

  let version = 0;
  const link = live(root.dataset.events, {
    state: (state) => {
      // a reconnection that lands on a replica further behind sends older states: skipped,
      // so that the results and the chart never go back (the same version again is a refresh)
      if (Number(state.version) < version) return;
      version = Number(state.version);
      render(state);
      if (state.phase === "PHASE_CLOSED") link.close();
    },
  });
})();
