// The lobby, live: its rows from /api/lobby/events (the first event at once, then at most
// one a second), sorted by the column header last clicked, filtered by the game chosen.
"use strict";

(function () {
  const table = document.getElementById("lobby");
  const body = table.tBodies[0];
  const select = document.getElementById("game");
  const count = document.getElementById("count");
  let rows = [];
  let sortKey = "table_id", sortType = "text", descending = false;

  const chances = (r) => r.player_edge !== null && r.player_edge !== undefined
    ? Number(r.player_edge) : r.best_bet ? Number(r.best_bet.rtp) - 1 : -Infinity;
  const value = (r, key) => key === "chances" ? chances(r)
    : key === "alert_count" ? r.alerts.length
    : key === "changed_at" ? (r.changed_at || 0) : r[key];

  function chancesText(r) {
    if (r.player_edge !== null && r.player_edge !== undefined) return "edge " + percent(r.player_edge, true);
    if (r.best_bet) return r.best_bet.bet + " " + percent(r.best_bet.rtp);
    return "";
  }

  function render() {
    const game = select.value;
    const shown = rows.filter((r) => !game || r.game === game);
    shown.sort((a, b) => {
      const x = value(a, sortKey), y = value(b, sortKey);
      // numbers by comparison, not by difference: -Infinity - -Infinity is NaN (no bet open)
      const order = sortType === "number" ? (Number(x) > Number(y)) - (Number(x) < Number(y))
        : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    body.replaceChildren(...shown.map((r) => {
      const link = el("a", r.table_id);
      link.href = "/tables/" + encodeURIComponent(r.table_id);
      const name = el("td"); name.appendChild(link);
      const alerts = el("td", r.alerts.join(", "), "alerts");
      const tr = row([name, gameName(r.game), el("td", r.shoe, "n"), phaseName(r.phase),
        el("td", r.cards_remaining, "n"), el("td", r.watchers, "n"), clock(r.changed_at),
        chancesText(r), alerts]);
      tr.dataset.game = r.game;
      if (r.alerts.length) tr.className = "alerting";
      return tr;
    }));
    count.textContent = shown.length + " tables";
  }

  for (const th of table.tHead.rows[0].cells) {
    th.addEventListener("click", () => {
      descending = sortKey === th.dataset.key ? !descending : false;
      sortKey = th.dataset.key; sortType = th.dataset.type;
      for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      render();
    });
  }
  select.addEventListener("change", render);
  render();
  live("/api/lobby/events", { lobby: (data) => { rows = data.tables; render(); } });
})();
