// Shared by the console's pages: names, numbers, elements, and the live link's indicator.
"use strict";

// The games' names, as the server names them (pages.py GAMES).
const GAMES = JSON.parse(document.body.dataset.games);

function gameName(game) { return GAMES[game] || String(game).replace(/^GAME_/, ""); }
function phaseName(phase) { return String(phase).replace(/^PHASE_/, "").replace(/_/g, " ").toLowerCase(); }
function percent(x, signed) {
  const text = (Number(x) * 100).toFixed(2) + "%";
  return signed && Number(x) > 0 ? "+" + text : text;
}
function clock(seconds) {
  return seconds ? new Date(seconds * 1000).toISOString().slice(11, 19) : "";
}

// An element with text (never HTML: every value is set as text, so nothing is markup).
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function row(cells) {
  const tr = el("tr");
  for (const cell of cells) tr.appendChild(cell instanceof Node ? cell : el("td", cell));
  return tr;
}

// Opens an EventSource and shows its state in the header. EventSource reconnects by itself
// (the server sends "retry:") while the server is away; a stream the server refused (a limit,
// a token, a table gone) it gives up on, and cannot tell why: the page asks once (fetch) and
// shows the server's answer, "429: ... the limit --max-watchers-per-table is 2", then tries
// again after a pause that doubles up to 30 s.
function live(url, handlers) {
  const link = document.getElementById("link");
  const show = (state, text) => {
    link.dataset.state = state;
    link.textContent = text || state;
  };
  let source = null, stopped = false, pause = 2000;
  const later = () => {
    setTimeout(open, pause);
    pause = Math.min(2 * pause, 30000);
  };
  const why = () => fetch(url).then(async (answer) => {
    if (answer.ok) {  // open again now: the refusal has passed
      if (answer.body) answer.body.cancel();
      show("reconnecting");
    } else {
      show("refused", answer.status + ": " + (await answer.text()).trim());
    }
    later();
  }, () => { show("reconnecting"); later(); });
  const open = () => {
    if (stopped) return;
    source = new EventSource(url);
    source.onopen = () => { pause = 2000; show("live"); };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) why();
      else show("reconnecting");
    };
    // "behind": the server ends a stream the page fell behind on (a busy table); that is no
    // outage, so the page reopens at once from the state as it is and the badge stays live.
    source.addEventListener("behind", () => { source.close(); open(); });
    for (const [name, handle] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => handle(JSON.parse(event.data)));
    }
  };
  open();
  return { close: () => { stopped = true; source.close(); show("ended"); } };
}
