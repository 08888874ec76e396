// Shared by the console's pages: names, numbers, elements, and the live link's indicator.
"use strict";

const GAMES = {
  GAME_HILO: "Hi-Lo", GAME_BLACKJACK: "Blackjack", GAME_GOA_GAE: "Goa Gae",
  GAME_HIGHER_LOWER: "Higher/Lower", GAME_BACCARAT: "Baccarat",
  GAME_DRAGON_TIGER: "Dragon Tiger",
};

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

// Opens an EventSource and shows its state in the header; EventSource reconnects by itself
// (the server sends "retry:"), and a stream the server ended is reopened after a pause.
function live(url, handlers) {
  const link = document.getElementById("link");
  const show = (state) => { link.dataset.state = state; link.textContent = state; };
  let source = null, stopped = false;
  const open = () => {
    if (stopped) return;
    source = new EventSource(url);
    source.onopen = () => show("live");
    source.onerror = () => {
      show("reconnecting");
      if (source.readyState === EventSource.CLOSED) setTimeout(open, 2000);
    };
    // "behind": the server ends a stream the page fell behind on (a busy table); that is no
    // outage, so the page reopens at once from the state as it is and the badge stays live
    // (left to onerror, it said "reconnecting" for the retry pause while states still came).
    source.addEventListener("behind", () => { source.close(); open(); });
    for (const [name, handle] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => handle(JSON.parse(event.data)));
    }
  };
  open();
  return { close: () => { stopped = true; source.close(); show("ended"); } };
}
