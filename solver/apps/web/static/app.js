// capsa serve: the page. Plain JavaScript, no build step, no library; it talks only to
// the server that sent it (/api/solve, /api/check, /api/deal, /api/rules).
"use strict";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_NAME = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };
const ROWS = ["front", "middle", "back"];
const ROW_SIZE = { front: 3, middle: 5, back: 5 };
const SCORE_KEY = "capsa.practice";

const state = {
  mode: "solve",
  picked: new Set(), // the hand picked or typed (solve, check)
  dealt: null, // practice: {hand: [...], seed, scored}
  rows: { front: [], middle: [], back: [] },
  target: "front",
  uploaded: new Map(), // select value -> TOML text
  rulesets: new Map(), // name -> description from /api/rules
  naturals: new Map(), // natural name -> {english, local} from /api/rules
  limits: null,
  answer: null, // the last solve answer
  busy: false,
};

// ------------------------------------------------------------------ cards

const cardId = (c) => RANKS.indexOf(c[0]) * 4 + SUITS.indexOf(c[1]);
const sortCards = (cards) => [...cards].sort((a, b) => cardId(b) - cardId(a));
const cardName = (c) => `${RANK_NAME[c[0]] || c[0]} of ${SUIT_NAME[c[1]]}`;
const splitCards = (text) => (text ? text.split(/\s+/).filter(Boolean) : []);

// Read a hand as the CLI does: "As Kd", "as,kd", "AsKd", "10h", "A♠". Returns the cards
// in order (duplicates kept) and the first token that is not a card.
function parseCards(text) {
  const out = [];
  const s = text.replace(/[\s,;]+/g, " ").trim();
  let i = 0;
  while (i < s.length) {
    if (s[i] === " ") { i++; continue; }
    const m = /^(10|[2-9tjqka])([cdhs♣♦♥♠♧♢♡♤])/i.exec(s.slice(i));
    if (!m) {
      const bad = s.slice(i).split(" ")[0];
      return { cards: out, bad };
    }
    const rank = m[1] === "10" ? "T" : m[1].toUpperCase();
    const sym = m[2].toLowerCase();
    const suit = { "♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s" }[sym] || sym;
    out.push(rank + suit);
    i += m[0].length;
  }
  return { cards: out, bad: null };
}

// What is wrong with a hand, in one line, or null when it is 13 distinct cards.
function handProblem(text) {
  const { cards, bad } = parseCards(text);
  if (bad !== null) {
    return `"${bad}" is not a card: a card is a rank (2-9, T or 10, J, Q, K, A) and a suit (c, d, h, s), e.g. As or 10h`;
  }
  const seen = new Set();
  for (const c of cards) {
    if (seen.has(c)) return `duplicate card ${c}: each card can be in the hand once`;
    seen.add(c);
  }
  if (cards.length === 0) return "pick 13 cards, or type them";
  if (cards.length < 13) return `${cards.length} cards: pick ${13 - cards.length} more (a hand is 13 cards)`;
  if (cards.length > 13) return `${cards.length} cards: remove ${cards.length - 13} (a hand is 13 cards)`;
  return null;
}

// ------------------------------------------------------------------ DOM helpers

const $ = (sel) => document.querySelector(sel);
const $$ = (sel) => [...document.querySelectorAll(sel)];

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// A card drawn: rank over suit, in its suit's colour.
function cardFace(c, tag = "span", attrs = {}) {
  return h(tag, { class: `card suit-${c[1]}`, "data-card": c, title: cardName(c), "aria-label": cardName(c), ...attrs },
    h("span", { class: "rank", "aria-hidden": "true", text: c[0] }),
    h("span", { class: "suit", "aria-hidden": "true", text: SUIT_SYMBOL[c[1]] }));
}

function cardsLine(text, extra = {}) {
  const cards = Array.isArray(text) ? text : splitCards(text);
  return h("span", { class: "cardline", "data-cards": cards.join(" "), ...extra }, cards.map((c) => cardFace(c)));
}

const signed = (x, nd = 3) => (x === null || x === undefined ? "n/a" : (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(nd));
const pct = (x) => (x === null || x === undefined ? "n/a" : `${(100 * x).toFixed(1)}%`);

function showError(message) {
  $("#error").textContent = message || "";
}

// ------------------------------------------------------------------ the API

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const t0 = performance.now();
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new Error("the capsa server does not answer: is `capsa serve` still running?");
  }
  let data;
  try {
    data = await res.json();
  } catch (e) {
    data = { error: `the server answered ${res.status} ${res.statusText}` };
  }
  if (!res.ok) throw new Error(data.error || `the server answered ${res.status}`);
  const m = /dur=([\d.]+)/.exec(res.headers.get("Server-Timing") || "");
  return { data, serverMs: m ? parseFloat(m[1]) : null, fetchMs: performance.now() - t0, t0 };
}

function rulesValue() {
  const v = $("#rules").value;
  return state.uploaded.has(v) ? state.uploaded.get(v) : v;
}

function tableOptions() {
  const o = { rules: rulesValue(), players: Number($("#players").value), policy: $("#policy").value };
  if (o.policy === "mc") {
    const samples = $("#samples").value.trim();
    const seed = $("#seed").value.trim();
    if (samples !== "") o.samples = Number(samples);
    if (seed !== "") o.seed = Number(seed);
  }
  return o;
}

// ------------------------------------------------------------------ modes (tabs)

function setMode(mode, focus = false) {
  state.mode = mode;
  $("#main").dataset.mode = mode;
  for (const tab of $$("[role=tab]")) {
    const on = tab.dataset.mode === mode;
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
    if (on && focus) tab.focus();
  }
  for (const el of $$("[data-modes]")) el.hidden = !el.dataset.modes.split(" ").includes(mode);
  showError("");
  if (mode === "practice") {
    if (!state.dealt) dealPractice();
  }
  resetBoardFromHand();
  renderScore();
}

function setupTabs() {
  const tabs = $$("[role=tab]");
  for (const tab of tabs) {
    tab.addEventListener("click", () => setMode(tab.dataset.mode));
    tab.addEventListener("keydown", (e) => {
      const i = tabs.indexOf(tab);
      let j = null;
      if (e.key === "ArrowRight") j = (i + 1) % tabs.length;
      else if (e.key === "ArrowLeft") j = (i + tabs.length - 1) % tabs.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = tabs.length - 1;
      if (j !== null) {
        e.preventDefault();
        setMode(tabs[j].dataset.mode, true);
      }
    });
  }
}

// ------------------------------------------------------------------ the picker

function buildPicker() {
  const grid = $("#picker");
  for (const suit of [...SUITS].reverse()) {
    const row = h("div", { role: "row", class: "picker-row" });
    for (const rank of [...RANKS].reverse()) {
      const c = rank + suit;
      const button = cardFace(c, "button", {
        type: "button", "aria-pressed": "false", tabindex: "-1", class: `card pick suit-${suit}`,
      });
      button.addEventListener("click", () => togglePick(c));
      row.append(h("span", { role: "gridcell", class: "cell" }, button));
    }
    grid.append(row);
  }
  grid.querySelector("button").tabIndex = 0;
  grid.addEventListener("keydown", (e) => {
    const cells = $$("#picker button");
    const i = cells.indexOf(document.activeElement);
    if (i < 0) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 13, ArrowUp: -13, Home: -(i % 13), End: 12 - (i % 13) };
    if (e.key in moves) {
      e.preventDefault();
      const j = i + moves[e.key];
      if (j >= 0 && j < cells.length) {
        cells[i].tabIndex = -1;
        cells[j].tabIndex = 0;
        cells[j].focus();
      }
    }
  });
}

function togglePick(c) {
  if (state.picked.has(c)) state.picked.delete(c);
  else state.picked.add(c);
  $("#hand-input").value = sortCards(state.picked).join(" ");
  handChanged();
}

function setHandText(text) {
  $("#hand-input").value = text;
  const { cards } = parseCards(text);
  state.picked = new Set(cards);
  handChanged();
}

// The hand's state shown everywhere: picker, sorted line, status, the board.
function handChanged() {
  const text = $("#hand-input").value;
  const problem = handProblem(text);
  for (const b of $$("#picker button")) {
    b.setAttribute("aria-pressed", state.picked.has(b.dataset.card) ? "true" : "false");
  }
  const picked = $("#picked");
  picked.replaceChildren(...sortCards(state.picked).map((c) => cardFace(c)));
  picked.dataset.cards = sortCards(state.picked).join(" ");
  const status = $("#hand-status");
  status.textContent = problem === null ? "13 cards: ready" : problem;
  status.classList.toggle("bad", problem !== null && text.trim() !== "");
  status.dataset.ok = problem === null ? "true" : "false";
  if (state.mode === "check") resetBoardFromHand(true);
}

function handCards() {
  if (state.mode === "practice") return state.dealt ? state.dealt.hand : [];
  return handProblem($("#hand-input").value) === null ? sortCards(state.picked) : [];
}

// ------------------------------------------------------------------ rulesets

// A natural as players call it: "Six pairs (六对半, lục phé bôn)".
function naturalLabel(name) {
  const n = state.naturals.get(name);
  if (!n) return name.replace(/_/g, " ");
  return n.local.length ? `${n.english} (${n.local.join(", ")})` : n.english;
}

async function loadRules() {
  const { data } = await api("/api/rules");
  state.limits = data.limits;
  for (const n of data.naturals) state.naturals.set(n.name, n);
  const sel = $("#rules");
  for (const r of data.rulesets) {
    state.rulesets.set(r.name, r);
    // what players call the game: "十三水 (shisanshui)"
    const called = r.game && r.game !== r.name ? `${r.game} (${r.name})` : r.name;
    const label = r.name === data.default ? `${called}, this server's default` : called;
    sel.append(h("option", { value: r.name, text: label }));
  }
  sel.value = data.default;
  $("#samples").max = String(data.limits.samples);
  rulesChanged();
}

function rulesChanged() {
  const d = state.rulesets.get($("#rules").value);
  if (!d) return;
  $("#players").value = String(d.players);
  $("#rules-summary").textContent = `${d.name}: ${d.summary}` +
    (d.ready ? "" : ". Its field tables are not trained yet: run `capsa train --rules FILE` first.");
  $("#rules-naturals").textContent = d.naturals.length
    ? "Naturals, strongest first: " + d.naturals.map((n) => `${naturalLabel(n.name)} ${n.units}`).join(" · ")
    : "";
}

async function uploadRules(file) {
  showError("");
  if (!file) return;
  if (state.limits && file.size > state.limits.body - 1024) {
    showError(`${file.name}: too large for this server (${file.size.toLocaleString()} bytes)`);
    return;
  }
  const text = await file.text();
  try {
    const { data } = await api("/api/rules", { rules: text });
    const value = `upload:${state.uploaded.size + 1}`;
    state.uploaded.set(value, text);
    state.rulesets.set(value, data);
    $("#rules").append(h("option", { value, text: `${data.name} (uploaded ${file.name})` }));
    $("#rules").value = value;
    rulesChanged();
  } catch (e) {
    showError(`${file.name}: ${e.message}`);
  }
}

// ------------------------------------------------------------------ the answer

const ADVICE = {
  play: "Play this setting",
  declare: "Declare the natural",
  surrender: "Surrender",
};

function rowBar(stats) {
  if (!stats) return h("span", { class: "note", text: "no row rates for this policy" });
  const bar = h("div", {
    class: "bar", role: "img",
    "aria-label": `win ${pct(stats.win)}, tie ${pct(stats.tie)}, loss ${pct(stats.loss)}`,
  });
  for (const [k, cls] of [["win", "w"], ["tie", "t"], ["loss", "l"]]) {
    const seg = h("span", { class: cls });
    seg.style.width = `${(100 * stats[k]).toFixed(2)}%`;
    bar.append(seg);
  }
  return h("div", { class: "bar-wrap" }, bar,
    h("span", { class: "bar-text" }, h("span", { class: "w-text", text: `win ${pct(stats.win)}` }),
      ` · tie ${pct(stats.tie)} · `, h("span", { class: "l-text", text: `loss ${pct(stats.loss)}` })));
}

function describeHow(d) {
  if (d.policy === "mc") return `Monte Carlo, ${d.samples.toLocaleString()} opponent hands, seed ${d.seed === null ? "random" : d.seed}`;
  if (d.policy === "field") return "the field model (no sampling)";
  if (d.policy === "greedy") return "the greedy setting, valued by the field model";
  if (d.policy === "exact") return "exact against the given opponents";
  return d.policy;
}

function renderAnswer(d, timing) {
  const nOpp = d.players - 1;
  const rows = h("table", { class: "setting" },
    h("thead", {}, h("tr", {}, h("th", { text: "row" }), h("th", { text: "cards" }), h("th", { text: "win · tie · loss" }))),
    h("tbody", {}, ROWS.map((r) => h("tr", { "data-row": r, "data-cards": d[r] },
      h("th", { scope: "row", text: r }), h("td", {}, cardsLine(d[r])), h("td", {}, rowBar(d.row_stats && d.row_stats[r]))))));
  const se = d.stderr;
  const ev = h("p", { class: "ev" },
    h("strong", { class: "ev-value", text: signed(d.ev) }),
    se !== null && se !== undefined && d.policy === "mc" ? ` ± ${se.toFixed(3)}` : "",
    " units per opponent · ",
    h("strong", { class: "ev-total", text: signed(d.ev_total) }),
    se !== null && se !== undefined && d.policy === "mc" ? ` ± ${(se * nOpp).toFixed(3)}` : "",
    ` for the table (${nOpp} opponent${nOpp > 1 ? "s" : ""})`);
  const parts = [h("p", { class: `advice advice-${d.action}`, "data-action": d.action },
    ADVICE[d.action] + (d.action === "declare" && d.natural ? `: ${naturalLabel(d.natural.name)}` : "")),
  rows, ev];
  if (d.ev_by_opponent && d.ev_by_opponent.length > 1) {
    parts.push(h("p", { class: "note by-opponent" }, "by opponent: ",
      d.ev_by_opponent.map((x, i) => `seat ${i + 1} ${signed(x)}`).join(" · ")));
  }
  if (d.stakes) parts.push(h("p", { class: "note" }, `staked: ${signed(d.ev_staked, 2)} (stakes ${d.stakes.join(", ")})`));
  if (d.natural) {
    const n = d.natural;
    parts.push(h("p", { class: "natural" },
      `Natural: ${naturalLabel(n.name)}. Declaring is worth ${signed(n.ev_declare)}, playing ${signed(n.ev_play)}: `,
      h("strong", { text: n.declared ? "declare it" : "play it out" })));
  }
  const sur = d.surrender;
  parts.push(h("p", { class: "surrender" }, sur.cost === null
    ? "Surrender is not allowed under these rules."
    : `Surrender costs ${sur.cost} per opponent: ${sur.recommended ? "recommended" : "not recommended"}.`));
  if (d.alternatives && d.alternatives.length) {
    parts.push(h("h3", { text: "Runners-up" }), h("table", { class: "alts" },
      h("thead", {}, h("tr", {}, ["front", "middle", "back", "ev", "vs best"].map((c) => h("th", { text: c })))),
      h("tbody", {}, d.alternatives.map((a) => h("tr", {},
        ROWS.map((r) => h("td", {}, cardsLine(a[r]))),
        h("td", { class: "num", text: signed(a.ev) }),
        h("td", { class: "num", text: signed(a.diff) + (a.diff_stderr ? ` ± ${a.diff_stderr.toFixed(3)}` : "") }))))));
  }
  parts.push(h("p", { class: "note how" },
    `${describeHow(d)} · ${d.candidates ?? "?"} settings scored · ${d.rules}, ${d.players} players`));
  if (timing) parts.push(timingLine(timing));
  return h("div", { class: "answer" }, parts);
}

function timingLine(t) {
  const page = performance.now() - t.t0;
  const server = t.serverMs === null ? "" : ` (solving took ${Math.round(t.serverMs)} ms on the server)`;
  return h("p", {
    class: "note timing", "data-server-ms": t.serverMs ?? "", "data-page-ms": page.toFixed(1),
  }, `Answered in ${Math.round(page)} ms${server}.`);
}

// One request at a time. The button stays focusable (aria-disabled, not disabled), so
// the keyboard does not lose its place while the answer is worked out.
async function withBusy(button, fn) {
  if (state.busy) return;
  state.busy = true;
  const label = button.textContent;
  button.setAttribute("aria-disabled", "true");
  button.setAttribute("aria-busy", "true");
  button.textContent = "Working…";
  try {
    await fn();
  } catch (e) {
    showError(e.message);
  } finally {
    state.busy = false;
    button.removeAttribute("aria-disabled");
    button.removeAttribute("aria-busy");
    if (button.textContent === "Working…") button.textContent = label; // unless fn renamed it
  }
}

async function solveHand() {
  showError("");
  const text = $("#hand-input").value;
  const problem = handProblem(text);
  if (problem !== null) {
    showError(`Cannot solve: ${problem}.`);
    $("#hand-input").focus();
    return;
  }
  await withBusy($("#solve"), async () => {
    const res = await api("/api/solve", { hand: sortCards(state.picked).join(" "), ...tableOptions() });
    state.answer = res.data;
    $("#answer").replaceChildren(renderAnswer(res.data, res));
  });
}

// ------------------------------------------------------------------ the board

function placed() {
  return new Set(ROWS.flatMap((r) => state.rows[r]));
}

function resetBoardFromHand(keep = false) {
  const hand = new Set(handCards());
  for (const r of ROWS) state.rows[r] = keep ? state.rows[r].filter((c) => hand.has(c)) : [];
  if (!keep) $("#check-result").replaceChildren();
  setTarget(keep ? state.target : "front");
}

function setTarget(row) {
  state.target = row;
  for (const b of $$(".row-target")) b.setAttribute("aria-pressed", b.dataset.row === row ? "true" : "false");
  for (const s of $$(".slot")) s.classList.toggle("target", s.dataset.row === row);
  renderBoard();
}

// The row the next card goes to: the chosen one, else the first with room.
function nextTarget() {
  if (state.rows[state.target].length < ROW_SIZE[state.target]) return state.target;
  return ROWS.find((r) => state.rows[r].length < ROW_SIZE[r]) || state.target;
}

function moveCard(c, to, targetAfter = null) {
  if (to !== "pool" && !state.rows[to].includes(c) && state.rows[to].length >= ROW_SIZE[to]) {
    showError(`The ${to} row holds ${ROW_SIZE[to]} cards: take one out first.`);
    return;
  }
  for (const r of ROWS) state.rows[r] = state.rows[r].filter((x) => x !== c);
  if (to !== "pool") state.rows[to] = sortCards([...state.rows[to], c]);
  showError("");
  if (targetAfter) state.target = targetAfter;
  setTarget(nextTarget());
}

function boardCard(c, where) {
  const b = cardFace(c, "button", {
    type: "button", draggable: "true", class: `card suit-${c[1]}`,
    "aria-label": where === "pool" ? `${cardName(c)}: put in the ${state.target} row` : `${cardName(c)}, in the ${where} row: take back`,
  });
  b.addEventListener("click", () => {
    const i = $$("#pool button").indexOf(b);
    if (where === "pool") moveCard(c, nextTarget());
    else moveCard(c, "pool", where);
    // Keep the keyboard where it was: the next card to place, else the Check button.
    const after = $$("#pool button");
    if (where === "pool") (after[Math.min(i, after.length - 1)] || $("#check")).focus();
    else (document.querySelector(`#pool [data-card="${c}"]`) || $("#check")).focus();
  });
  b.addEventListener("dragstart", (e) => {
    e.dataTransfer.setData("text/plain", c);
    e.dataTransfer.effectAllowed = "move";
  });
  return b;
}

function renderBoard() {
  const hand = handCards();
  const inRows = placed();
  for (const r of ROWS) {
    const zone = document.querySelector(`.cards[data-row="${r}"]`);
    zone.replaceChildren(...state.rows[r].map((c) => boardCard(c, r)));
    zone.dataset.cards = state.rows[r].join(" ");
    document.querySelector(`.row-target[data-row="${r}"] .count`).textContent = `${state.rows[r].length}/${ROW_SIZE[r]}`;
  }
  const pool = $("#pool");
  const left = hand.filter((c) => !inRows.has(c));
  pool.replaceChildren(...left.map((c) => boardCard(c, "pool")));
  pool.dataset.cards = left.join(" ");
  if (!hand.length) {
    pool.append(h("span", { class: "note", text: state.mode === "practice" ? "Deal a hand to start." : "Pick 13 cards above first." }));
  }
}

function setupBoard() {
  for (const b of $$(".row-target")) b.addEventListener("click", () => setTarget(b.dataset.row));
  $("#board-panel").addEventListener("keydown", (e) => {
    if (e.target.matches("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    const row = { f: "front", m: "middle", b: "back", 1: "front", 2: "middle", 3: "back" }[e.key.toLowerCase()];
    if (row) {
      e.preventDefault();
      setTarget(row);
      const first = $("#pool button");
      if (first && !e.target.closest("#pool")) first.focus();
      else if (first) (document.querySelector(`#pool [data-card="${e.target.dataset.card}"]`) || first).focus();
    }
  });
  for (const zone of $$(".dropzone")) {
    zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("over"));
    zone.addEventListener("drop", (e) => {
      e.preventDefault();
      zone.classList.remove("over");
      const c = e.dataTransfer.getData("text/plain");
      if (handCards().includes(c)) moveCard(c, zone.dataset.row);
    });
  }
  $("#reset-board").addEventListener("click", () => resetBoardFromHand());
  $("#check").addEventListener("click", checkSetting);
  $("#deal").addEventListener("click", dealPractice);
}

function playedText() {
  return ROWS.map((r) => state.rows[r].join(" ")).join(" | ");
}

async function checkSetting() {
  showError("");
  const hand = handCards();
  if (hand.length !== 13) {
    showError(state.mode === "practice" ? "Deal a hand first." : "Pick 13 cards first.");
    return;
  }
  const missing = ROWS.filter((r) => state.rows[r].length !== ROW_SIZE[r]);
  if (missing.length) {
    const left = 13 - placed().size;
    showError(`Place every card: front 3, middle 5, back 5 (${left} card${left === 1 ? "" : "s"} left).`);
    return;
  }
  await withBusy($("#check"), async () => {
    const res = await api("/api/check", { hand: hand.join(" "), played: playedText(), ...tableOptions() });
    $("#check-result").replaceChildren(renderCheck(res.data, res));
    if (state.mode === "practice" && state.dealt && !state.dealt.scored) {
      state.dealt.scored = true;
      addScore(res.data.played);
      $("#deal").textContent = "Deal the next hand";
    }
  });
}

function renderCheck(d, timing) {
  const p = d.played;
  const best = p.loss !== null && Math.abs(p.loss) < 5e-7;
  const verdict = p.fouled
    ? h("p", { class: "verdict fouled", "data-fouled": "true" },
      h("strong", { text: "Fouled." }), " The rows are out of order (the back must be at least the middle, the middle at least the front): every opponent scoops you.")
    : h("p", { class: `verdict ${best ? "best" : "costly"}`, "data-fouled": "false" },
      best ? h("strong", { text: "That is the best setting." }) : h("strong", { text: `It costs ${p.loss.toFixed(3)} units per opponent against the best.` }));
  const se = p.loss_stderr ? ` ± ${p.loss_stderr.toFixed(3)}` : "";
  const value = h("p", { class: "ev" }, "Your setting: ", h("strong", { class: "played-ev", text: signed(p.ev) }),
    " units per opponent · loss ", h("strong", { class: "played-loss", text: p.loss.toFixed(3) }), se,
    ` · rank ${p.rank} of ${p.of}`);
  const rows = h("table", { class: "compare" },
    h("thead", {}, h("tr", {}, ["row", "yours", "best", "win", "vs best"].map((c) => h("th", { text: c })))),
    h("tbody", {}, ROWS.map((r) => {
      const row = p.rows[r];
      return h("tr", { "data-row": r, class: row.differs ? "differs" : "same", "data-differs": String(row.differs) },
        h("th", { scope: "row" }, r, row.differs ? h("span", { class: "differs-tag", text: " differs" }) : ""),
        h("td", { "data-label": "yours" }, cardsLine(p[r])), h("td", { "data-label": "best" }, cardsLine(d[r])),
        h("td", { class: "num", "data-label": "win", text: pct(row.win) }),
        h("td", { class: "num", "data-label": "vs best", text: row.win_change === null ? "n/a" : `${row.win_change >= 0 ? "+" : "−"}${Math.abs(100 * row.win_change).toFixed(1)}%` }));
    })));
  const details = h("details", { class: "best-answer" }, h("summary", { text: "The best setting in full" }), renderAnswer(d, null));
  return h("div", { class: "check" }, verdict, value, rows, details, timingLine(timing));
}

// ------------------------------------------------------------------ practice

async function dealPractice() {
  await withBusy($("#deal"), async () => {
    const res = await api("/api/deal");
    state.dealt = { hand: splitCards(res.data.hand), seed: res.data.seed, scored: false };
    $("#deal-note").textContent = `deal #${res.data.seed}`;
    $("#deal").textContent = "Deal another hand";
    resetBoardFromHand();
  });
}

function loadScore() {
  try {
    return JSON.parse(sessionStorage.getItem(SCORE_KEY)) || { hands: 0, loss: 0, best: 0, fouls: 0 };
  } catch (e) {
    return { hands: 0, loss: 0, best: 0, fouls: 0 };
  }
}

function addScore(played) {
  const s = loadScore();
  s.hands += 1;
  s.loss += Math.max(0, played.loss);
  if (Math.abs(played.loss) < 5e-7) s.best += 1;
  if (played.fouled) s.fouls += 1;
  sessionStorage.setItem(SCORE_KEY, JSON.stringify(s));
  renderScore();
}

function renderScore() {
  const s = loadScore();
  const el = $("#score");
  if (!s.hands) {
    el.replaceChildren(h("p", { class: "note", text: "Your score for this session shows here once you have set a hand." }));
    return;
  }
  el.replaceChildren(h("p", { class: "score", "data-hands": s.hands, "data-loss": s.loss.toFixed(6) },
    h("strong", { text: "This session: " }),
    `${s.hands} hand${s.hands === 1 ? "" : "s"}, lost ${s.loss.toFixed(3)} units per opponent in all `,
    `(${(s.loss / s.hands).toFixed(3)} a hand), best setting ${s.best} time${s.best === 1 ? "" : "s"}, fouled ${s.fouls}. `,
    h("button", {
      type: "button", class: "link", onclick: () => { sessionStorage.removeItem(SCORE_KEY); renderScore(); },
    }, "Start again")));
}

// ------------------------------------------------------------------ start

function syncPolicy() {
  const mc = $("#policy").value === "mc";
  for (const el of $$(".mc-only")) el.hidden = !mc;
}

async function start() {
  buildPicker();
  setupTabs();
  setupBoard();
  $("#hand-input").addEventListener("input", () => {
    const { cards } = parseCards($("#hand-input").value);
    state.picked = new Set(cards);
    handChanged();
  });
  $("#hand-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (state.mode === "solve") solveHand();
  });
  $("#solve").addEventListener("click", solveHand);
  $(".skip").addEventListener("click", (e) => {
    e.preventDefault();
    if (state.mode === "practice") setMode("solve");
    $("#hand-input").focus();
  });
  $("#clear-hand").addEventListener("click", () => { setHandText(""); $("#answer").replaceChildren(); $("#hand-input").focus(); });
  $("#random-hand").addEventListener("click", () => withBusy($("#random-hand"), async () => {
    const res = await api("/api/deal");
    setHandText(res.data.hand);
  }));
  $("#rules").addEventListener("change", rulesChanged);
  $("#rules-file").addEventListener("change", (e) => uploadRules(e.target.files[0]));
  $("#policy").addEventListener("change", syncPolicy);
  syncPolicy();
  setMode("solve");
  handChanged();
  try {
    await loadRules();
    document.body.dataset.ready = "true";
  } catch (e) {
    showError(e.message);
  }
}

document.addEventListener("DOMContentLoaded", start);
