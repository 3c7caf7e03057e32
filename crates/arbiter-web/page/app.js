// The spectator page: draws the state the server pushes on /live (the
// whole game state after every step) and reconnects when the connection
// drops, showing the state as it is then, never a blank page.
"use strict";

const GLYPH = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟" };
const COLOUR = { w: "white", b: "black", r: "red", u: "blue", y: "yellow" };
const key = (c) => c[0] + "," + c[1];
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

function card(token) {
  if (token === "##") return el("div", "card back");
  if (token === "??") return el("div", "card unknown", "?");
  const box = el("div", "card");
  for (const part of token.split("+")) {
    const colour = COLOUR[part[0]];
    const glyph = GLYPH[part[1]];
    if (!colour || !glyph) { box.append(el("span", "name", part)); continue; }
    box.append(el("span", "piece " + colour, glyph));
  }
  box.append(el("span", "name", token));
  box.title = token;
  return box;
}

// When each step was first drawn (ms since the epoch), for the latency
// measurement in tests/spectators.rs.
window.__shown = {};

function draw(s) {
  if (!(s.step in window.__shown)) window.__shown[s.step] = Date.now();
  const name = s.title || s.game || "game";
  document.getElementById("title").textContent =
    name + (s.players && s.players.length ? " · " + s.players.join(" vs ") : "");
  document.title = name + " · arbiter";
  const flagged = new Map();
  for (const f of s.flags || []) for (const c of f.cells) flagged.set(key(c), f);
  const last = new Set((s.last_action || []).map(key));
  const check = new Set(((s.check && s.check.attackers) || []).map(key));
  const pending = new Set(((s.pending && s.pending.cells) || []).map(key));
  const thrones = new Set((s.thrones || []).map((t) => key(t.cell)));
  const tokens = new Map((s.cells || []).map((c) => [key(c.cell), c.token]));
  // Twelve's area: the cells pieces may still reach, framed.
  const inArea = (c, r) => s.area && c >= s.area[0][0] && c <= s.area[1][0] && r >= s.area[0][1] && r <= s.area[1][1];

  let c0, c1, r0, r1;
  if (s.chessboard) { c0 = 0; c1 = 7; r0 = 0; r1 = 7; }
  else {
    const all = [...(s.cells || []).map((c) => c.cell), ...(s.flags || []).flatMap((f) => f.cells)];
    if (s.area) all.push(s.area[0], s.area[1]);
    if (all.length === 0) all.push([0, 0]);
    c0 = Math.min(...all.map((c) => c[0])) - 1; c1 = Math.max(...all.map((c) => c[0])) + 1;
    r0 = Math.min(...all.map((c) => c[1])) - 1; r1 = Math.max(...all.map((c) => c[1])) + 1;
  }
  const board = document.getElementById("board");
  board.className = s.chessboard ? "chess" : "";
  board.replaceChildren();
  board.style.gridTemplateColumns = "24px repeat(" + (c1 - c0 + 1) + ", auto)";
  board.append(el("div", "coord"));
  for (let c = c0; c <= c1; c++) board.append(el("div", "coord", s.chessboard ? "abcdefgh"[c] : String(c)));
  for (let r = r0; r <= r1; r++) {
    board.append(el("div", "coord", s.chessboard ? String(8 - r) : String(r)));
    for (let c = c0; c <= c1; c++) {
      const k = c + "," + r;
      const cell = el("div", "cell");
      cell.dataset.cell = k;
      if (s.chessboard) cell.classList.add((c + r) % 2 === 0 ? "light" : "dark");
      const t = tokens.get(k);
      if (t) cell.append(card(t));
      if (last.has(k)) cell.classList.add("last");
      if (check.has(k)) cell.classList.add("check");
      if (pending.has(k)) cell.classList.add("pending");
      if (thrones.has(k)) cell.classList.add("throne");
      if (inArea(c, r)) cell.classList.add("area");
      const f = flagged.get(k);
      if (f) { cell.classList.add("flagged"); cell.title = f.message; }
      board.append(cell);
    }
  }

  const flags = document.getElementById("flags");
  flags.replaceChildren();
  if (!s.flags || s.flags.length === 0) flags.append(el("li", "none", "The table matches the game."));
  for (const f of s.flags || []) {
    const li = el("li", "flag");
    li.dataset.kind = f.kind;
    li.dataset.cells = f.cells.map(key).join(" ");
    li.append(el("div", "message", f.message));
    li.append(el("div", "rule", f.rule + " · " + f.kind.replace(/_/g, " ")));
    flags.append(li);
  }
  const p = document.getElementById("pending");
  p.hidden = !s.pending;
  p.textContent = s.pending ? "Still to do by hand: " + s.pending.message : "";

  const banner = document.getElementById("banner");
  if (s.over) { banner.hidden = false; banner.className = "over"; banner.textContent = "Game over" + (s.result ? ": " + s.result : ""); }
  else if (s.check && s.check.player) { banner.hidden = false; banner.className = ""; banner.textContent = "Check: " + s.check.player; }
  else { banner.hidden = true; }
  let turn = s.over ? "" : s.turn ? "To move: " + s.turn : "";
  const cards = s.cards;
  if (cards && !s.over) {
    // DoubleCross: the card drawn decides the piece that moves.
    if (cards.drawn) turn = cards.drawn.by + " drew " + cards.drawn.card + " and must act";
    else if (cards.next_draw) turn = cards.next_draw + " to draw";
    turn += " · pile " + cards.pile;
    if (cards.pending) turn += " · " + cards.pending;
    if (cards.removal_right) turn += " · " + cards.removal_right;
  }
  document.getElementById("turn").textContent = turn;

  const players = document.getElementById("players");
  players.replaceChildren();
  // Enochian's players are its armies, listed below with more.
  for (const pl of (s.armies && s.armies.length ? [] : s.panel_players || [])) {
    const li = el("li", pl.to_move ? "to-move" : "",
      pl.colour + (pl.to_move ? " · to move" : "") + (pl.in_check ? " · in check" : "") +
      (pl.next ? " · next card " + pl.next + " (" + pl.left + " left)" : ""));
    players.append(li);
  }
  // Enochian: the four armies in turn order, each with what holds it.
  for (const a of s.armies || []) {
    const facts = [a.element + ", " + a.team + " team", "moved by " + a.controller];
    if (a.to_move) facts.push("to move");
    if (a.in_check) facts.push("in check");
    if (a.frozen) facts.push("frozen");
    if (a.withdrawn) facts.push("withdrawn");
    if (a.stalemated) facts.push("stalemated");
    if (a.king_off) facts.push("king off the board");
    if (a.prisoners && a.prisoners.length) facts.push("holds prisoner: " + a.prisoners.join(", "));
    for (const n of a.notes || []) facts.push(n);
    const li = el("li", a.to_move ? "to-move army" : "army", a.colour + " · " + facts.join(" · "));
    li.dataset.army = a.colour;
    players.append(li);
  }
  if (s.armies && s.armies.length) {
    players.append(el("li", "order", "Turn order: " + s.armies.map((a) => a.to_move ? "[" + a.colour + "]" : a.colour).join(" → ")));
  }
  if (s.die) {
    const d = s.die;
    const roll = d.roll ? "rolled " + d.roll + (d.needs ? " (" + d.needs + " moves)" : "") : "not yet rolled";
    const li = el("li", "die", "Die: " + roll + " · re-rolls " + d.rerolls_used + " of " + d.rerolls_max);
    players.append(li);
  }
  for (const n of s.notes || []) players.append(el("li", "note", n));
  const log = document.getElementById("log");
  log.replaceChildren();
  for (const line of s.log || []) log.append(el("li", /FLAG/.test(line) ? "flag" : "", line));
  log.scrollTop = log.scrollHeight;

  // "live" only while the input lives.
  const status = document.getElementById("status");
  const state = s.over ? "over" : s.input_ended ? "ended" : "live";
  status.className = "status " + state;
  // Steps as players count them, from 1; none before the first table.
  const steps = s.steps > 0 ? " · step " + s.steps : "";
  // A camera in trouble says so (the view's status line says the same).
  const trouble = !s.over && !s.input_ended && s.trouble ? s.trouble : null;
  const now = trouble ? (trouble.kind === "reconnecting" ? "camera lost, reconnecting" : "camera stalled") : null;
  if (trouble) status.className = "status connecting";
  status.textContent = s.over ? "game over" : (s.input_ended ? "input ended" : now || "live") + steps;
  status.title = trouble ? trouble.why : "";
}

function connect() {
  const source = new EventSource("/live");
  source.addEventListener("state", (e) => draw(JSON.parse(e.data)));
  source.onerror = () => {
    const status = document.getElementById("status");
    status.className = "status connecting";
    status.textContent = "reconnecting…";
    // EventSource reconnects by itself; the server sends the state as it
    // is then, first.
  };
}

// The state as it was when the page was served, inlined in it: the page
// is drawn before anything else loads, never blank.
const inlined = document.getElementById("state");
if (inlined) {
  const s = JSON.parse(inlined.textContent);
  if (s.game !== undefined) draw(s);
}
connect();
