// capsa serve: the page. Plain JavaScript, no build step; one library, SortableJS
// (static/vendor/, MIT), for drag and drop by mouse, pen or touch. It talks only to
// the server that sent it (/api/solve, /api/check, /api/natural, /api/rows, /api/table, /api/deal,
// /api/rules, /api/train)
// and reads its own language catalogues (/static/i18n/LANG.json). Every row it shows is
// named by the server (/api/rows: the hand class, its royalty, the first row out of
// order), in the words of the page's language (the catalogue's hand.* keys).
"use strict";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
// A joker (鬼牌, docs/rules.md#jokers) as the page and the server write it; the second
// joker of a deck with two is "X2" on the page (a card's second copy), "X" to the server.
const JOKER = "X";
const ROWS = ["front", "middle", "back"];
const ROW_SIZE = { front: 3, middle: 5, back: 5 };
const PARTS = ["rows", "bonus", "royalties", "naturals"];
const SCORE_KEY = "capsa.practice";
const LANG_KEY = "capsa.lang";
const GAME_KEY = "capsa.game"; // the ruleset the player chose from the menu
// The game each language's players play: a first visit starts there (docs/serve.md).
const LANG_GAME = { "zh-Hans": "shisanshui", "zh-Hant": "shisanshui", vi: "mau-binh", id: "capsa", fil: "pusoy" };
// capsa's own default: a server started with another --rules keeps its own.
const CAPSA_DEFAULT = "chinese-1-6";
const HISTORY_KEY = "capsa.history";
const HISTORY_MAX = 12;
const LANGS = ["en", "zh-Hans", "zh-Hant", "id", "vi", "fil", "hr", "bn"];
const TOML_IN_LINK = 2000; // an uploaded ruleset up to this size travels in the link

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
  defaultRules: null, // the server's default ruleset
  answer: null, // the last solve answer: {data, timing, link}
  checked: null, // the last check answer: {data, timing, hands}
  table: null, // practice: the last showdown (POST /api/table)
  shape: null, // the table's shape (GET /api/rules: table): the players menu's bounds
  poolSort: "rank", // the cards to place: by rank (by shape) or by suit
  liveAsk: 0, // the board's latest /api/rows request (older answers are dropped)
  handInfo: null, // /api/natural for the board's hand: {key, natural, surrender}
  busy: false,
  trainSize: null, // GET /api/rules: training: the server's {rounds, hands, minutes}
  training: null, // the last training asked here: {value, name, data: GET /api/train/ID}
  lang: "en",
  messages: {}, // the catalogue in use
  english: {}, // the English catalogue: any key missing elsewhere falls back to it
};

// ------------------------------------------------------------------ messages

// A message of the catalogue in use, its {placeholders} filled.
function t(key, vars = {}) {
  let text = state.messages[key] ?? state.english[key] ?? key;
  if (text.includes("{unit}") && !("unit" in vars)) vars = { ...vars, unit: unitWord() };
  for (const [k, v] of Object.entries(vars)) text = text.split(`{${k}}`).join(String(v));
  return text;
}

// The table's unit, as its players count it (docs/serve.md, "speaks of each table in its
// own unit"): a preset's own word in this language (unit.shisanshui: 水 in 中文;
// unit.mau-binh: chi in Tiếng Việt), else the language's word for a unit (unit.generic).
// name: a ruleset's menu value, else the chosen one.
function unitWord(name = null) {
  const key = name ?? (typeof document !== "undefined" && $("#rules") ? $("#rules").value : "");
  const d = state.rulesets && state.rulesets.get(key);
  const own = d && d.game && !state.uploaded.has(key) ? state.messages[`unit.${key}`] : undefined;
  return own ?? state.messages["unit.generic"] ?? state.english["unit.generic"];
}

// A game as the page's language names it (rules.p.game.NAME: "中国扑克（1-6 计分）"), never
// its menu value: a preset's name in this language, for a table the server seats from it
// (``shisanshui-5``, ``mau-binh-jokers-2``) its preset's; an upload keeps its own name.
function gameName(name) {
  const chosen = state.rulesets && state.rulesets.get(name);
  if (chosen && state.uploaded && state.uploaded.has(name)) return chosen.name;
  const base = String(name).replace(/-jokers-\d+$/, "").replace(/-\d+$/, "");
  for (const key of [name, base]) {
    const d = state.rulesets && state.rulesets.get(key);
    if (!d) continue;
    const own = state.messages[`rules.p.game.${key}`] ?? state.english[`rules.p.game.${key}`];
    return own ?? (d.game || d.name);
  }
  return name;
}

// The singular or plural message for n (Intl.PluralRules: "one" or "other").
function tp(key, n, vars = {}) {
  const form = new Intl.PluralRules(state.lang).select(n) === "one" ? "one" : "other";
  return t(form === "one" ? `${key}.one` : `${key}.other`, { n: plain(n), ...vars });
}

const rowName = (r) => ({ front: t("row.front"), middle: t("row.middle"), back: t("row.back") })[r];
const partName = (p) => ({
  rows: t("parts.rows"), bonus: t("parts.bonus"), royalties: t("parts.royalties"), naturals: t("parts.naturals"),
  foul: t("parts.foul"),
})[p];
const adviceText = (a) => ({ play: t("advice.play"), declare: t("advice.declare"), surrender: t("advice.surrender") })[a];
const scoringText = (s) => ({ "per-row": t("scoring.perRow"), "1-6": t("scoring.16"), "2-4": t("scoring.24") })[s] || s;
const modeText = (m) => ({ winner: t("mode.winner"), cancel: t("mode.cancel"), always: t("mode.always") })[m] || m;
const wheelText = (w) => ({ low: t("wheel.low"), second: t("wheel.second") })[w] || w;

// ------------------------------------------------------------------ hand names

// A hand class (high_card .. royal_flush) as the page's language's players say it.
const handName = (cls) => ({
  high_card: t("hand.high_card"), pair: t("hand.pair"), two_pair: t("hand.two_pair"),
  three_of_a_kind: t("hand.three_of_a_kind"), straight: t("hand.straight"), flush: t("hand.flush"),
  full_house: t("hand.full_house"), four_of_a_kind: t("hand.four_of_a_kind"),
  straight_flush: t("hand.straight_flush"), royal_flush: t("hand.royal_flush"),
  five_of_a_kind: t("hand.five_of_a_kind"), two_jokers: t("hand.two_jokers"),
})[cls] || "";

// Each row of some settings named by the server, in the order asked: [{front: {cards,
// class, royalty}, middle, back, dealt, foul: {row, over} or null}, ...]; null when the
// server cannot say (the answer is then shown without the names).
async function nameSettings(settings) {
  try {
    const { data } = await api("/api/rows", { ...seatOptions(), settings });
    return data.settings.map(unroyal);
  } catch (e) {
    return null;
  }
}

// A fouled setting's rows earn no royalty: their hands are named without one
// ("三条", not "三条 +3").
function unroyal(named) {
  if (!named || !named.foul) return named;
  const out = { ...named };
  for (const r of ROWS) if (out[r]) out[r] = { ...out[r], royalty: 0 };
  return out;
}

// The flat payment of a fouled hand under the chosen rules (Mậu Binh's binh lủng: 6 to
// each opponent), or null when a fouled hand is scooped instead.
function flatFoul() {
  const d = state.rulesets.get($("#rules").value);
  const f = d && d.rules.foul_penalty;
  return typeof f === "number" ? f : null;
}

const settingOf = (x) => ROWS.map((r) => x[r]).join(" | ");

// "straight flush +5": a row's hand, with its royalty when it earns one, and what its
// jokers stand for ("joker as 10♠") when it holds any.
function handLabel(info) {
  if (!info || !info.class) return "";
  const name = info.royalty ? `${handName(info.class)} ${fmtSigned(info.royalty, 0)}` : handName(info.class);
  return info.jokers ? `${name} · ${jokersAs(info.jokers)}` : name;
}
const jokersAs = (cards) => t("joker.as", { cards: splitCards(cards).map(cardText).join(" ") });

function handTag(info) {
  const text = handLabel(info);
  return text ? h("span", { class: "hand-name", "data-class": info.class, "data-jokers": info.jokers || null, text }) : null;
}

// Where a setting's royalties come from: "back: straight flush +5 · dealt +4".
function royaltySources(named) {
  if (!named) return "";
  const out = ROWS.filter((r) => named[r].royalty).map((r) =>
    t("royalty.source", { row: rowName(r), hand: handName(named[r].class), units: fmtSigned(named[r].royalty, 0) }));
  if (named.dealt) out.push(t("royalty.dealt", { units: fmtSigned(named.dealt, 0) }));
  return out.join(" · ");
}

// "The front (pair) beats the middle (high card)": the foul, naming the rows.
function foulText(named, message) {
  const f = named && named.foul;
  if (!f) return "";
  return message({ row: rowName(f.row), hand: handName(named[f.row].class), over: rowName(f.over), other: handName(named[f.over].class) });
}

async function loadCatalogue(lang) {
  const res = await fetch(`/static/i18n/${lang}.json`);
  if (!res.ok) throw new Error(`no catalogue for ${lang}`);
  return res.json();
}

// The browser's language among the page's: zh-TW/HK/MO and zh-Hant are traditional,
// other Chinese simplified; Tagalog is Filipino; hr Croatian, bn Bengali; anything else English.
function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const low = tag.toLowerCase();
    if (low.startsWith("zh")) return /hant|-tw|-hk|-mo/.test(low) ? "zh-Hant" : "zh-Hans";
    if (low.startsWith("id") || low.startsWith("in")) return "id";
    if (low.startsWith("vi")) return "vi";
    if (low.startsWith("fil") || low.startsWith("tl")) return "fil";
    if (low.startsWith("hr")) return "hr";
    if (low.startsWith("bn")) return "bn";
    if (low.startsWith("en")) return "en";
  }
  return "en";
}

async function setLanguage(lang, remember = false) {
  if (!LANGS.includes(lang)) lang = "en";
  state.messages = lang === "en" ? state.english : await loadCatalogue(lang);
  const typed = $("#hand-input").value.trim() !== "";
  state.lang = lang;
  if (typed) $("#hand-input").value = writeCards(sortCards(state.picked)); // in its letters
  document.documentElement.lang = lang;
  $("#lang").value = lang;
  if (remember) {
    try { localStorage.setItem(LANG_KEY, lang); } catch (e) { /* private browsing */ }
  }
  applyStatic();
}

// The page's own text (data-i18n: the text; data-i18n-attr="attr:key;...": attributes).
function applyStatic() {
  for (const el of $$("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of $$("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr, t(key));
    }
  }
  // no keys to press on a phone: the help says tap (and drag) only
  $("#board-help").textContent = touchScreen() ? t("board.helpTouch") : t("board.help");
  nameSwaps();
  refreshRulesText();
  syncPolicy();
  handChanged();
  renderBoard();
  renderScore();
  renderHistory();
  if (state.answer) showAnswer(state.answer.data, state.answer.timing, false);
  if (state.checked) $("#check-result").replaceChildren(renderCheck(state.checked.data, state.checked.timing, state.checked.hands));
  if (state.table) $("#showdown").replaceChildren(renderTable(state.table));
  updateBoardActions();
}

// A screen worked by touch (a phone, a tablet): no keyboard to press F, M, B on.
const touchScreen = () => matchMedia("(pointer: coarse)").matches || (navigator.maxTouchPoints || 0) > 0;

// ------------------------------------------------------------------ cards

// A joker ranks above the ace in the page's order (it is drawn first).
const isJoker = (c) => c[0] === JOKER;
const rankIndex = (c) => (isJoker(c) ? RANKS.length : RANKS.indexOf(c[0]));
// A card of the page: "Ah", or "Ah2" for the second copy of A♥ at a table whose deck deals
// the hearts twice (five and six players under 十三水, docs/rules.md#added-suits); the
// server writes both alike ("Ah Ah"), so the page tells them apart only to draw them.
// A joker is "X", the second joker "X2".
const face = (c) => (isJoker(c) ? JOKER : c.slice(0, 2));
const isCopy = (c) => c.length > face(c).length;
// Cards of a text (the server's, a hand typed): a card's second appearance is its second copy.
function withCopies(cards) {
  const seen = new Set();
  return cards.map((c) => {
    const f = face(c);
    if (seen.has(f)) return `${f}2`;
    seen.add(f);
    return f;
  });
}
// Cards as the server reads them: a second copy written as its first.
const cardsText = (cards) => [...cards].map(face).join(" ");
// The deck of the table chosen, as its code: the suits dealt twice ("", "h", "hc": the
// ruleset's deck at that many players, GET /api/rules: decks), then an "X" a joker.
function deckExtra() {
  const d = state.rulesets.get($("#rules").value);
  if (!d) return "";
  const seated = (d.decks && d.decks[$("#players").value]) ?? (d.rules && d.rules.extra_suits) ?? "";
  const jokers = jokersAsked();
  return seated.replaceAll(JOKER, "") + JOKER.repeat(jokers ?? d.jokers ?? 0);
}
const jokersIn = (extra) => extra.split(JOKER).length - 1;
const copiesHeld = (c, extra = deckExtra()) => (isJoker(c) ? jokersIn(extra) : extra.includes(c[1]) ? 2 : 1);
// The first card of ``cards`` (faces) held more often than the deck holds it, or null.
function copyTooMany(cards, extra = deckExtra()) {
  const count = {};
  for (const c of cards) {
    const f = face(c);
    count[f] = (count[f] || 0) + 1;
    if (count[f] > copiesHeld(f, extra)) return f;
  }
  return null;
}
const cardId = (c) => (rankIndex(c) * 4 + (isJoker(c) ? 0 : SUITS.indexOf(c[1]))) * 2 + (isCopy(c) ? 0 : 1);
const sortCards = (cards) => [...cards].sort((a, b) => cardId(b) - cardId(a));
const splitCards = (text) => (text ? text.split(/\s+/).filter(Boolean) : []);

// Cards as players lay them out: the jokers first, then the made part (quads, trips,
// pairs, highest first), then the rest by rank; a five-high straight as 5 4 3 2 A.
function shapeSort(cards) {
  const count = {};
  for (const c of cards) count[c[0]] = (count[c[0]] || 0) + 1;
  const ranks = new Set(cards.map((c) => c[0]));
  const wheel = cards.length === 5 && ranks.size === 5 && ["A", "2", "3", "4", "5"].every((r) => ranks.has(r));
  const rank = (c) => (wheel && c[0] === "A" ? -1 : rankIndex(c));
  return [...cards].sort((a, b) => (isJoker(b) - isJoker(a)) || (count[b[0]] - count[a[0]]) || (rank(b) - rank(a))
    || (cardId(b) - cardId(a)));
}

function cardName(c) {
  if (isJoker(c)) return isCopy(c) ? t("card.secondCopy", { card: t("card.joker") }) : t("card.joker");
  const rank = { T: t("rank.T"), J: t("rank.J"), Q: t("rank.Q"), K: t("rank.K"), A: t("rank.A") }[c[0]] || c[0];
  const suit = { c: t("suit.c"), d: t("suit.d"), h: t("suit.h"), s: t("suit.s") }[c[1]];
  const name = t("card.name", { rank, suit });
  return isCopy(c) ? t("card.secondCopy", { card: name }) : name;
}

// The suits as each language's players write them (docs/serve.md#cards): the letters
// read after a rank (Vietnamese b bích, c cơ, r rô, t tép / ch chuồn; Indonesian s sekop,
// h hati, w wajik, k keriting; Croatian p pik, h herc, k karo, t tref; Bengali players
// write the English letters), the words read before or after it (黑桃A, 红桃10), and
// the letter the page writes. The suit symbols are read in every language.
const SYMBOL_SUIT = { "♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s" };
const ZH_SUITS = {
  黑桃: "s", 黑: "s", 红桃: "h", 红心: "h", 红: "h", 紅桃: "h", 紅心: "h", 紅: "h",
  梅花: "c", 草花: "c", 梅: "c", 方块: "d", 方片: "d", 方塊: "d", 方: "d",
};
const SUIT_NOTATION = {
  en: { read: { c: "c", d: "d", h: "h", s: "s" }, write: { c: "c", d: "d", h: "h", s: "s" } },
  vi: { read: { ch: "c", b: "s", c: "h", r: "d", t: "c", s: "s", h: "h", d: "d" }, write: { s: "b", h: "c", d: "r", c: "t" } },
  id: { read: { s: "s", h: "h", w: "d", k: "c", c: "c", d: "d" }, write: { s: "s", h: "h", d: "w", c: "k" } },
  hr: { read: { p: "s", h: "h", k: "d", t: "c", s: "s", d: "d", c: "c" }, write: { s: "p", h: "h", d: "k", c: "t" } },
};
const notation = (lang = state.lang) => SUIT_NOTATION[lang] || SUIT_NOTATION.en;
const CARD_PATTERNS = new Map();

function cardPattern(lang) {
  if (!CARD_PATTERNS.has(lang)) {
    const letters = Object.keys(notation(lang).read).sort((a, b) => b.length - a.length);
    const words = lang.startsWith("zh") ? Object.keys(ZH_SUITS).sort((a, b) => b.length - a.length) : [];
    const suit = [...words, ...letters, ...Object.keys(SYMBOL_SUIT)].join("|");
    const before = words.length ? `(?<word>${words.join("|")})(?<wordRank>10|[2-9tjqka])|` : "";
    CARD_PATTERNS.set(lang, new RegExp(`^(?:${before}(?<rank>10|[2-9tjqka])(?<suit>${suit})\ufe0f?)`, "i"));
  }
  return CARD_PATTERNS.get(lang);
}

// Read a hand as the page's language writes it, and as the CLI does: "As Kd", "as,kd",
// "AsKd", "10h", "A♠" (in Vietnamese "Ab 10c" is A♠ 10♥, in Chinese "黑桃A"), a joker "X",
// "x" or "🃏" in every language (no suit letter is an x). Returns the
// cards in order (duplicates kept) and the first token that is not a card. lang "en"
// reads the page's own text (links, the server's answers).
function parseCards(text, lang = state.lang) {
  const out = [];
  const letters = []; // the suit letters written, lower case (not the symbols or words)
  const s = text.replace(/[\s,;]+/g, " ").trim();
  const read = notation(lang).read;
  let i = 0;
  while (i < s.length) {
    if (s[i] === " ") { i++; continue; }
    const joker = /^(?:[xX]|\u{1F0CF})\ufe0f?/u.exec(s.slice(i));
    if (joker) {
      out.push(JOKER);
      i += joker[0].length;
      continue;
    }
    const m = cardPattern(lang).exec(s.slice(i));
    if (!m) {
      const bad = s.slice(i).split(" ")[0];
      return { cards: out, bad };
    }
    const g = m.groups;
    const [rankText, suitText] = g.word ? [g.wordRank, g.word] : [g.rank, g.suit];
    const rank = rankText === "10" ? "T" : rankText.toUpperCase();
    const suit = SYMBOL_SUIT[suitText] || ZH_SUITS[suitText] || read[suitText.toLowerCase()];
    if (!SYMBOL_SUIT[suitText] && !ZH_SUITS[suitText]) letters.push(suitText.toLowerCase());
    out.push(rank + suit);
    i += m[0].length;
  }
  return { cards: out, bad: null, letters };
}

// A typed hand read so that it never changes meaning silently (docs/serve.md#cards). A
// letter the language reads one way and English another (Vietnamese c: ♥ cơ, in English
// ♣) is read the language's way, unless the hand is written in English letters (s, h, d,
// none of b, r, t, ch): then as English, and the read line says which. A hand mixing
// both is refused (``ambiguous``: the letter) rather than guessed. ``how``: "own" or
// "english" when such a letter was read, else null.
function readCards(text, lang = state.lang) {
  const first = parseCards(text, lang);
  const { read, write } = notation(lang);
  const en = SUIT_NOTATION.en.read;
  const own = new Set([...Object.values(write), ...Object.keys(read).filter((l) => l.length > 1)]);
  const used = first.letters || [];
  const twoWays = used.find((l) => own.has(l) && en[l] && en[l] !== read[l]);
  if (!twoWays || first.bad !== null) return { ...first, how: null };
  const english = used.some((l) => !own.has(l));
  const native = used.some((l) => own.has(l) && !en[l]);
  if (english && native) return { ...first, how: null, ambiguous: twoWays };
  if (english) return { ...parseCards(text, "en"), how: "english", letter: twoWays };
  return { ...first, how: "own", letter: twoWays };
}

// "b ♠ · c ♥ · r ♦ · t ♣": a notation's letters, each with its suit's symbol.
const lettersText = (lang) => Object.entries(notation(lang).write).sort(([a], [b]) => "shdc".indexOf(a) - "shdc".indexOf(b))
  .map(([suit, letter]) => `${letter} ${SUIT_SYMBOL[suit]}`).join(" · ");

// What the read line and the errors say of a two-way letter: how it was read, or that
// the hand mixes the two ways of writing.
function readingNote(r) {
  if (r.ambiguous) {
    return t("hand.ambiguous", { letter: r.ambiguous, own: SUIT_SYMBOL[notation().read[r.ambiguous]],
      english: SUIT_SYMBOL[SUIT_NOTATION.en.read[r.ambiguous]] });
  }
  if (r.how === "english") {
    return t("hand.readEnglish", { letter: r.letter, suit: SUIT_SYMBOL[SUIT_NOTATION.en.read[r.letter]], letters: lettersText("en") });
  }
  if (r.how === "own") {
    return t("hand.readOwn", { letter: r.letter, suit: SUIT_SYMBOL[notation().read[r.letter]], letters: lettersText(state.lang) });
  }
  return "";
}

// A card in an error, as the page writes it: "9c (9♥)" in Tiếng Việt, "9h (9♥)" in English.
const cardInError = (c) => (isJoker(c) ? cardText(c) : `${writeCard(c)} (${cardText(c)})`);

// Cards written as the page's language reads them back: "10b" in Vietnamese for 10♠.
const writeCard = (c) => (isJoker(c) ? JOKER : (c[0] === "T" ? "10" : c[0]) + notation().write[c[1]]);
const writeCards = (cards) => cards.map(writeCard).join(" ");
// A card as players write it by hand: "10♠", a joker "🃏".
const cardText = (c) => (isJoker(c) ? "🃏" : (c[0] === "T" ? "10" : c[0]) + SUIT_SYMBOL[c[1]]);

// A card held more often than the table's deck holds it, in one line: a card twice
// (written by ``write``: "As" for the hand box, "A♠" for a typed setting), or a joker at
// a table with fewer jokers.
function tooMany(card, cards, write = (c) => c) {
  if (!isJoker(card)) return t("hand.duplicate", { card: write(card) });
  const most = jokersIn(deckExtra());
  if (!most) return t("hand.noJoker");
  return t("hand.jokersTooMany", { n: plain(cards.filter(isJoker).length), most: plain(most) });
}

// What is wrong with a hand, in one line, or null when it is 13 distinct cards.
function handProblem(text) {
  const r = readCards(text);
  const { cards, bad } = r;
  if (bad !== null) return t("hand.notCard", { bad });
  if (r.ambiguous) return readingNote(r);
  const twice = copyTooMany(cards); // the deck's copies: A♥ twice at five players
  if (twice) return tooMany(twice, cards, cardInError);
  if (cards.length === 0) return t("hand.none");
  if (cards.length < 13) return tp("hand.tooFew", cards.length, { more: 13 - cards.length });
  if (cards.length > 13) return tp("hand.tooMany", cards.length, { fewer: cards.length - 13 });
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

// A word explained: its tooltip (title) and, for screen readers, the glossary entry.
// A tap (or Enter) shows the definition under the word: a phone has no hover.
function term(text, glossaryId, cls = "term") {
  const def = document.getElementById(glossaryId);
  const el = h("span", {
    class: cls, title: def ? def.textContent : null, "aria-describedby": glossaryId, tabindex: "0", role: "button",
    "aria-expanded": "false",
  }, text);
  const toggle = (e) => {
    e.preventDefault();
    const tip = el.nextElementSibling && el.nextElementSibling.classList.contains("term-tip") ? el.nextElementSibling : null;
    if (tip) tip.remove();
    else if (def) el.after(h("span", { class: "term-tip", role: "note", text: def.textContent }));
    el.setAttribute("aria-expanded", tip ? "false" : "true");
  };
  el.addEventListener("click", toggle);
  el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") toggle(e); });
  return el;
}

// A card's colour class: its suit's, or the joker's.
const cardClass = (c) => (isJoker(c) ? "joker" : `suit-${c[1]}`);

// A card drawn: rank over suit, in its suit's colour; a joker as a star over JOKER.
// A second copy of a card (at five and six players), or a second joker, carries a small "2".
function cardFace(c, tag = "span", attrs = {}) {
  const cls = `${attrs.class || `card ${cardClass(c)}`}${isCopy(c) ? " copy" : ""}`;
  const [top, bottom] = isJoker(c) ? ["★", "JOKER"] : [c[0] === "T" ? "10" : c[0], SUIT_SYMBOL[c[1]]];
  return h(tag, { "data-card": c, title: cardName(c), "aria-label": cardName(c), ...attrs, class: cls },
    h("span", { class: "rank", "aria-hidden": "true", text: top }),
    h("span", { class: isJoker(c) ? "suit joker-word" : "suit", "aria-hidden": "true", text: bottom }),
    isCopy(c) ? h("span", { class: "copy-mark", "aria-hidden": "true", text: "2" }) : null);
}

// A row or a hand: drawn by shape; data-cards keeps the answer's own text.
function cardsLine(text, extra = {}) {
  const cards = withCopies(Array.isArray(text) ? text : splitCards(text));
  return h("span", { class: "cardline", "data-cards": cardsText(cards), ...extra }, shapeSort(cards).map((c) => cardFace(c)));
}

// Numbers as the page's language writes them (its locale's thousands and decimals,
// through the browser's Intl), whichever way the language was chosen: one format for
// every figure on the page. nd: the digits after the decimal sign.
const LOCALES = { en: "en-US", "zh-Hans": "zh-CN", "zh-Hant": "zh-TW", id: "id-ID", vi: "vi-VN", fil: "fil-PH", hr: "hr-HR", bn: "bn-BD" };
const numberFormats = new Map();
function num(x, nd = 3) {
  const key = `${state.lang}/${nd}`;
  if (!numberFormats.has(key)) {
    numberFormats.set(key, new Intl.NumberFormat(LOCALES[state.lang] || "en-US",
      { minimumFractionDigits: nd, maximumFractionDigits: nd }));
  }
  return numberFormats.get(key).format(x);
}
// A count or a fixed number of units (a payout, a cost) with only the digits it has.
const plain = (x) => (typeof x === "number" ? num(x, Number.isInteger(x) ? 0 : Math.min(3, String(x).split(".")[1].length)) : x);
const fmtSigned = (x, nd = 3) => (x === null || x === undefined ? "n/a" : (x >= 0 ? "+" : "−") + num(Math.abs(x), nd));
const pct = (x) => (x === null || x === undefined ? "n/a" : `${num(100 * x, 1)}%`);

function setError(sel, message) {
  const el = $(sel);
  el.textContent = message || "";
  el.classList.toggle("bad", Boolean(message));
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
    throw new Error(t("error.noServer"));
  }
  let data;
  try {
    data = await res.json();
  } catch (e) {
    data = { error: t("error.status", { status: `${res.status} ${res.statusText}` }) };
  }
  if (!res.ok) throw new Error(data.error || t("error.status", { status: res.status }));
  const m = /dur=([\d.]+)/.exec(res.headers.get("Server-Timing") || "");
  return { data, serverMs: m ? parseFloat(m[1]) : null, fetchMs: performance.now() - t0, t0 };
}

function rulesValue() {
  const v = $("#rules").value;
  return state.uploaded.has(v) ? state.uploaded.get(v) : v;
}

// The jokers the table is asked for (the jokers menu), or null where the ruleset plays
// none (the menu hidden: the request leaves them to the ruleset).
function jokersAsked() {
  return $("#jokers-label").hidden ? null : Number($("#jokers").value);
}

// The table every request names: the ruleset, the players and the jokers.
function seatOptions() {
  const o = { rules: rulesValue(), players: Number($("#players").value) };
  const jokers = jokersAsked();
  if (jokers !== null) o.jokers = jokers;
  return o;
}

function tableOptions() {
  const o = { ...seatOptions(), policy: $("#policy").value };
  if (o.policy === "mc") {
    const samples = $("#samples").value.trim();
    const seed = $("#seed").value.trim();
    if (samples !== "") o.samples = Number(samples);
    if (seed !== "") o.seed = Number(seed);
    if ($("#opponents").value !== "field") o.opponents = $("#opponents").value;
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
  setError("#check-error", "");
  if (mode === "practice") {
    if (!state.dealt) dealPractice();
  }
  resetBoardFromHand();
  renderScore();
  updateBoardActions();
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

// The grid of the deck's cards: a row a suit, and under a suit dealt twice (the hearts at
// five players, the clubs too at six) a row of its second copies, each marked "2"; at a
// table with jokers a last row of them, one button a joker (the second marked "2").
function buildPicker(extra = "") {
  const grid = $("#picker");
  grid.dataset.extra = extra;
  const rows = [...SUITS].reverse().flatMap((suit) => (extra.includes(suit) ? [[suit, ""], [suit, "2"]] : [[suit, ""]]));
  const button = (c) => {
    const b = cardFace(c, "button", {
      type: "button", "aria-pressed": "false", tabindex: "-1", class: `card pick ${cardClass(c)}`,
    });
    b.addEventListener("click", () => togglePick(c));
    return h("span", { role: "gridcell", class: "cell" }, b);
  };
  const lines = rows.map(([suit, copy]) => h("div", { role: "row", class: `picker-row${copy ? " copies" : ""}` },
    [...RANKS].reverse().map((rank) => button(rank + suit + copy))));
  const jokers = jokersIn(extra);
  if (jokers) {
    lines.push(h("div", { role: "row", class: "picker-row jokers" }, [JOKER, `${JOKER}2`].slice(0, jokers).map(button)));
  }
  grid.replaceChildren(...lines);
  grid.querySelector("button").tabIndex = 0;
}

// The picker follows the table's deck, and so does a practice hand: a deck of another
// size deals again.
function deckChanged() {
  const extra = deckExtra();
  if ($("#picker").dataset.extra !== extra) {
    buildPicker(extra);
    handChanged();
  }
  if (state.mode === "practice" && state.dealt && state.dealt.extra !== extra) dealPractice();
}

function setupPicker() {
  const grid = $("#picker");
  grid.addEventListener("keydown", (e) => {
    const cells = $$("#picker button");
    const i = cells.indexOf(document.activeElement);
    if (i < 0) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 13, ArrowUp: -13, Home: -(i % 13), End: 12 - (i % 13) };
    if (e.key in moves) {
      e.preventDefault();
      let j = i + moves[e.key];
      // down from above the jokers' short row, or its End: to its last joker
      if (j >= cells.length && (e.key === "End" || Math.floor(i / 13) < Math.floor((cells.length - 1) / 13))) j = cells.length - 1;
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
  state.picked = new Set(withCopies(sortCards(state.picked))); // a lone second copy is the card
  $("#hand-input").value = writeCards(sortCards(state.picked));
  handChanged();
}

// The page's own text of a hand (a link's, the server's): written in the language's way.
function setHandText(text) {
  const cards = withCopies(parseCards(text, "en").cards);
  $("#hand-input").value = writeCards(cards);
  state.picked = new Set(cards);
  handChanged();
}

// The hand's state shown everywhere: picker, the line by shape, status, the board; an
// answer for another hand is marked stale.
function handChanged() {
  const text = $("#hand-input").value;
  const problem = handProblem(text);
  for (const b of $$("#picker button")) {
    b.setAttribute("aria-pressed", state.picked.has(b.dataset.card) ? "true" : "false");
    b.title = cardName(b.dataset.card);
    b.setAttribute("aria-label", cardName(b.dataset.card));
  }
  const picked = $("#picked");
  picked.replaceChildren(...shapeSort([...state.picked]).map((c) => cardFace(c)));
  picked.dataset.cards = cardsText(sortCards(state.picked));
  // what was read, in the order typed, in the page's letters (where the language has its
  // own) and as symbols, and how a two-way letter was read: nothing is misread silently
  const reading = readCards(text);
  const read = reading.cards;
  const symbols = read.map(cardText).join(" ");
  const shown = SUIT_NOTATION[state.lang] && state.lang !== "en" ? `${writeCards(read)} = ${symbols}` : symbols;
  const note = reading.ambiguous ? "" : readingNote(reading);
  $("#hand-read").textContent = read.length ? t("hand.read", { cards: shown }) + (note ? ` · ${note}` : "") : "";
  const status = $("#hand-status");
  status.textContent = problem === null ? t("status.ready") : problem;
  status.classList.toggle("bad", problem !== null && text.trim() !== "");
  status.dataset.ok = problem === null ? "true" : "false";
  if (state.answer && state.answer.data.hand !== cardsText(sortCards(state.picked))) markStale();
  if (state.mode === "check") {
    resetBoardFromHand(true);
    updateBoardActions();
  }
}

function handCards() {
  if (state.mode === "practice") return state.dealt ? state.dealt.hand : [];
  return handProblem($("#hand-input").value) === null ? sortCards(state.picked) : [];
}

// ------------------------------------------------------------------ rulesets

// A natural as players call it: in English "Six pairs (六对半, lục phé bôn)"; in another
// language its name there, with the English one.
function naturalLabel(name) {
  const n = state.naturals.get(name);
  const english = n ? n.english : name.replace(/_/g, " ");
  if (state.lang === "en") return n && n.local.length ? `${english} (${n.local.join(", ")})` : english;
  const local = t(`natural.${name}`);
  return local === `natural.${name}` ? english : local; // the language's own name, alone
}

// The jokers menu of a ruleset (0 to its most: 2, or none for a ruleset that ranks suits,
// whose menu is hidden): ``want`` when it plays that many, else the ruleset's own.
function jokersMenu(d, want) {
  const most = d ? d.max_jokers ?? 0 : 0;
  const own = d ? d.jokers ?? 0 : 0;
  $("#jokers-label").hidden = most === 0;
  const counts = [];
  for (let n = 0; n <= Math.max(most, own); n++) counts.push(h("option", { text: String(n) }));
  $("#jokers").replaceChildren(...counts);
  const n = Number(want);
  $("#jokers").value = String(Number.isInteger(n) && n >= 0 && n <= most ? n : own);
}

async function loadRules() {
  const { data } = await api("/api/rules");
  state.limits = data.limits;
  for (const n of data.naturals) state.naturals.set(n.name, n);
  // the players menu: the table's shape from the server (solver/engine/table_shape.py),
  // to each ruleset's most (rulesChanged: 6 under 十三水, which adds suits past four)
  state.shape = data.table;
  playersMenu(null, data.table.max_players);
  const sel = $("#rules");
  for (const r of data.rulesets) {
    state.rulesets.set(r.name, r);
    sel.append(h("option", { value: r.name, "data-default": r.name === data.default ? "true" : null }));
  }
  sel.value = data.default;
  state.defaultRules = data.default;
  state.trainSize = data.training;
  $("#samples").max = String(data.limits.samples);
  refreshRulesText();
  const game = firstGame();
  if (game) sel.value = game;
  rulesChanged();
  renderHistory();  // the answers' games by name, now that the rulesets are known
}

function storedGame() {
  try { return localStorage.getItem(GAME_KEY); } catch (e) { return null; }
}

// The ruleset to start at: the one the player chose before, else the language's game
// (十三水 for 中文, Mậu Binh for Tiếng Việt ...) unless the server has a default of its own.
function firstGame() {
  const stored = storedGame();
  if (stored && state.rulesets.has(stored)) return stored;
  if (state.defaultRules !== CAPSA_DEFAULT) return null;
  const game = LANG_GAME[state.lang];
  return game && state.rulesets.has(game) ? game : null;
}

// The player picked a ruleset from the menu: remembered (a preset, not an upload).
function rememberGame() {
  const v = $("#rules").value;
  if (state.uploaded.has(v)) return;
  try { localStorage.setItem(GAME_KEY, v); } catch (e) { /* private browsing */ }
}

// The options' labels that come from the rulesets (the server's default named).
function refreshRulesText() {
  for (const opt of $$("#rules option")) {
    const d = state.rulesets.get(opt.value);
    if (!d) continue;
    // what players call the game, in the page's language: "中国扑克（1-6 计分）"
    const called = gameName(d.name);
    if (opt.dataset.default) opt.textContent = t("rules.default", { name: called });
    else if (opt.dataset.file) opt.textContent = t("rules.uploaded", { name: d.name, file: opt.dataset.file });
    else opt.textContent = called;
  }
  const d = state.rulesets.get($("#rules").value);
  if (d) showRulesSummary(d);
  tableLine();
}

// "Rules of this game" and the header's "Rules": the players' page of the chosen game in the page's language
// (GET /rules/NAME?lang=xx, docs/serve.md); hidden for an uploaded ruleset, which has none.
function gameRulesLink(d) {
  const link = $("#game-rules-link");
  const own = !state.uploaded.has($("#rules").value) && (d.game || d.name === state.defaultRules);
  link.hidden = !own;
  link.href = own ? `/rules/${encodeURIComponent(d.name)}?lang=${encodeURIComponent(state.lang)}` : "/rules";
  // the header's "Rules" opens the same players' page (the specification, in English, for
  // an uploaded ruleset; otherwise it stays at the page's foot, #spec-link)
  $("#rules-link").setAttribute("href", link.getAttribute("href"));
}

// A ruleset in one line, each setting explained by its tooltip (the glossary's entry).
function showRulesSummary(d) {
  gameRulesLink(d);
  const r = d.rules;
  const parts = [term(scoringText(r.scoring), "g-unit")];
  if (r.scoop_multiplier !== 1) parts.push(term(t("rules.scoopX", { n: r.scoop_multiplier }), "g-scoop"));
  if (r.royalties) {
    const royal = Object.values(r.royalties).some((row) => "royal_flush" in row);
    const mode = modeText(r.royalty_mode);
    parts.push(term(royal ? t("rules.royaltiesRoyal", { mode }) : t("rules.royalties", { mode }), "g-winner"));
  } else {
    parts.push(term(t("rules.noRoyalties"), "g-royalties"));
  }
  parts.push(term(r.naturals ? t("rules.naturalsOn") : t("rules.naturalsOff"), "g-natural"));
  const suits = r.suit_order && r.suit_order !== "none";
  parts.push(term(suits ? t("rules.suits", { order: [...r.suit_order].map((s) => SUIT_SYMBOL[s] || s).join(" > ") }) : t("rules.noSuits"), "g-suits"));
  parts.push(term(wheelText(r.wheel), "g-wheel"));
  if (r.home_run_multiplier !== 1) {
    parts.push(term(t("rules.homeRun", { n: r.home_run_multiplier, m: r.home_run_min_opponents }), "g-scoop"));
  }
  // the newer keys, only away from their defaults (as `capsa rules` lists them)
  if (r.royalties_dealt) parts.push(term(t("rules.royaltiesDealt"), "g-royalties"));
  if (r.one_royalty_per_hand) parts.push(term(t("rules.oneRoyalty"), "g-royalties"));
  if (r.royalty_replaces_row) parts.push(term(t("rules.royaltyRow"), "g-royalties"));
  if (r.natural_ties === "payout") parts.push(term(t("rules.naturalTies"), "g-natural"));
  if (r.natural_ties === "difference") parts.push(term(t("rules.naturalDifference"), "g-natural"));
  if (r.equal_rows_foul) parts.push(term(t("rules.equalRows"), "g-foul"));
  if (typeof r.foul_penalty === "number") parts.push(term(t("rules.foulPenalty", { n: plain(r.foul_penalty) }), "g-foul"));
  if (r.code_card) {
    const card = parseCards(String(r.code_card), "en").cards[0];
    parts.push(term(t("rules.codeCard", { card: card ? cardText(card) : r.code_card, n: plain(r.code_card_multiplier) }), "g-seat"));
  }
  const called = gameName($("#rules").value);
  const line = [h("strong", { class: "game-name", text: called }), ": "];
  parts.forEach((p, i) => line.push(i ? ", " : "", p));
  // the file's own name in the command: `capsa train --rules house.toml`
  if (!d.ready) line.push(". ", t("rules.notReady", { file: d.file || "FILE.toml" }));
  $("#rules-summary").replaceChildren(...line);
  trainPanel();
  $("#rules-naturals").textContent = d.naturals.length
    ? t("rules.naturals") + " " + d.naturals.map((n) => `${naturalLabel(n.name)} ${plain(n.units)}`).join(" · ")
    : "";
}

// The table in one line, the folded settings' summary: "Mậu Binh · 4 players · field
// opponents" (on a phone the settings start folded behind it: the cards come first).
function tableLine() {
  const d = state.rulesets.get($("#rules").value);
  if (!d) return;
  const called = gameName($("#rules").value);
  const who = $("#opponents").selectedOptions[0];
  const jokers = jokersIn(deckExtra());
  $("#table-line").textContent = [called, tp("table.players", Number($("#players").value)),
    jokers ? tp("table.jokers", jokers) : null,
    t("table.opponentsAre", { who: who ? who.textContent : $("#opponents").value })].filter(Boolean).join(" · ");
}

// The players menu of a ruleset: from the table's least to the most it seats; ``want``
// when it seats that many, else its most.
function playersMenu(d, want) {
  const least = state.shape.min_players;
  const most = (d && d.max_players) || state.shape.max_players;
  const seats = [];
  for (let n = least; n <= most; n++) seats.push(h("option", { text: String(n) }));
  $("#players").replaceChildren(...seats);
  const n = Number(want);
  $("#players").value = String(Number.isInteger(n) && n >= least && n <= most ? n : most);
}

function rulesChanged() {
  const d = state.rulesets.get($("#rules").value);
  if (!d) return;
  setError("#rules-status", "");
  playersMenu(d, d.players);
  jokersMenu(d, $("#jokers").value); // the jokers chosen stay where the ruleset plays them
  showRulesSummary(d);
  optionsChanged();
  updateBoardActions(true);
}

async function uploadRules(file) {
  setError("#rules-status", "");
  if (!file) return;
  if (state.limits && file.size > state.limits.body - 1024) {
    setError("#rules-status", t("rules.tooLarge", { file: file.name, size: num(file.size, 0) }));
    markStale();
    return;
  }
  const text = await file.text();
  try {
    const { data } = await api("/api/rules", { rules: text });
    addUploaded(text, { ...data, file: file.name }, file.name);
    rulesChanged();
  } catch (e) {
    setError("#rules-status", `${file.name}: ${e.message}`);
    $("#rules-file").value = "";
    markStale();
  }
}

function addUploaded(text, data, fileName) {
  for (const [value, known] of state.uploaded) {
    if (known === text) {
      $("#rules").value = value;
      return value;
    }
  }
  const value = `upload:${state.uploaded.size + 1}`;
  state.uploaded.set(value, text);
  state.rulesets.set(value, data);
  $("#rules").append(h("option", { value, "data-file": fileName }));
  refreshRulesText();
  $("#rules").value = value;
  return value;
}

// ------------------------------------------------------------------ training (POST /api/train)

// A ruleset whose field tables are not trained yet may be trained by the server, in the
// background (one at a time): a button, then a <progress> bar while it trains, the page
// usable meanwhile; once done, the hand in the box is solved. `capsa train` stays the
// other way (the summary line names it).
const TRAIN_POLL_MS = 700;
const trainEnded = (job) => job.data.state === "done" || job.data.state === "failed";

function trainPanel() {
  const value = $("#rules").value;
  const d = state.rulesets.get(value);
  const job = state.training;
  const running = job !== null && !trainEnded(job);
  const shown = job !== null && (running || job.value === value);
  $("#train").hidden = !(d && !d.ready) && !shown;
  const button = $("#train-start");
  button.hidden = !(d && !d.ready) || running || !state.trainSize;
  if (state.trainSize) button.textContent = t("train.button", { minutes: num(state.trainSize.minutes, 0) });
  const bar = $("#train-progress");
  bar.hidden = !running;
  const status = $("#train-status");
  status.classList.remove("bad");
  status.removeAttribute("data-ok");
  if (!shown) {
    status.textContent = "";
    return;
  }
  const j = job.data;
  bar.value = j.progress;
  const vars = { name: job.name, percent: `${num(100 * j.progress, 0)}%` };
  if (j.state === "queued") status.textContent = t("train.queued", vars);
  else if (j.state === "running") status.textContent = t("train.running", vars);
  else if (j.state === "done") status.textContent = t("train.done", vars);
  else status.textContent = t("train.failed", { ...vars, error: j.error });
  if (j.state === "failed") status.classList.add("bad");
  if (j.state === "done") status.dataset.ok = "true";
}

async function startTraining() {
  const value = $("#rules").value;
  const d = state.rulesets.get(value);
  if (!d || (state.training && !trainEnded(state.training))) return;
  setError("#rules-status", "");
  try {
    const { data } = await api("/api/train", seatOptions());
    state.training = { value, name: gameName(value), data };
  } catch (e) {
    setError("#rules-status", e.message);
    return;
  }
  trainPanel();
  await followTraining(state.training);
}

// Asks how far the training is until it ends; then the ruleset is ready and the hand in
// the box (if it is a whole hand) is solved.
async function followTraining(job) {
  while (!trainEnded(job)) {
    await new Promise((resolve) => setTimeout(resolve, TRAIN_POLL_MS));
    try {
      job.data = (await api(`/api/train/${encodeURIComponent(job.data.id)}`)).data;
    } catch (e) {
      job.data = { ...job.data, state: "failed", error: e.message };
    }
    if (state.training === job) trainPanel();
  }
  if (job.data.state !== "done" || state.training !== job) return;
  const text = state.uploaded.get(job.value);
  const d = state.rulesets.get(job.value);
  if (text !== undefined && d) {
    try {
      const { data } = await api("/api/rules", { rules: text });
      state.rulesets.set(job.value, { ...data, file: d.file });
    } catch (e) {
      setError("#rules-status", e.message);
    }
  }
  if ($("#rules").value !== job.value) return;
  refreshRulesText();
  if (state.mode === "solve" && handProblem($("#hand-input").value) === null) await solveHand();
}

// Another ruleset, table size, policy, sample count or seed: the answer shown is for
// other options.
function optionsChanged() {
  tableLine();
  markStale();
  deckChanged();
}

function markStale() {
  const ans = $("#answer .answer");
  if (!ans || ans.classList.contains("stale")) return;
  ans.classList.add("stale");
  ans.setAttribute("aria-disabled", "true");
  ans.prepend(h("p", { class: "stale-note", role: "status", text: t("answer.stale") }));
}

// ------------------------------------------------------------------ the answer

function rowBar(stats) {
  if (!stats) return h("span", { class: "note", text: t("answer.noRates") });
  const bar = h("div", {
    class: "bar", role: "img",
    "aria-label": t("bar.aria", { win: pct(stats.win), tie: pct(stats.tie), loss: pct(stats.loss) }),
  });
  for (const [k, cls] of [["win", "w"], ["tie", "t"], ["loss", "l"]]) {
    const seg = h("span", { class: cls });
    seg.style.width = `${(100 * stats[k]).toFixed(2)}%`;
    bar.append(seg);
  }
  return h("div", { class: "bar-wrap" }, bar,
    h("span", { class: "bar-text" }, h("span", { class: "w-text", text: t("bar.win", { p: pct(stats.win) }) }),
      " · ", t("bar.tie", { p: pct(stats.tie) }), " · ", h("span", { class: "l-text", text: t("bar.loss", { p: pct(stats.loss) }) })));
}

// The opponents as players say them ("typical players"), never the solver's name (field).
const whoText = (x) => ({ field: t("who.field"), greedy: t("who.greedy"), safe: t("who.safe") })[x] || x;

function describeHow(d) {
  if (d.policy === "mc") {
    const how = t("how.mc", { samples: num(d.samples, 0), seed: d.seed === null ? "—" : d.seed });
    if (!d.opponents || d.opponents === "field") return how;
    return `${how} · ${t("how.opponents", { who: whoText(d.opponents) })}`;
  }
  if (d.policy === "field") return t("how.field");
  if (d.policy === "greedy") return t("how.greedy");
  if (d.policy === "exact") return t("how.exact");
  return d.policy;
}

const units = (unit = unitWord()) => term(t("answer.units", { unit }), "g-unit");

// Where the value of playing comes from: rows, bonuses, royalties, opponents' naturals.
// sources: where the royalties come from ("back: straight flush +5"), beside their part.
function partsTable(parts, total, cls = "parts", sources = "") {
  if (!parts) return null;
  const label = (p) => (p === "royalties" && sources
    ? [partName(p), h("span", { class: "part-source", text: ` (${sources})` })] : partName(p));
  return h("table", { class: cls },
    h("caption", {}, term(t("parts.title"), "g-parts")),
    h("tbody", {}, PARTS.map((p) => h("tr", { "data-part": p },
      h("th", { scope: "row" }, label(p)), h("td", { class: "num", text: fmtSigned(parts[p]) }))),
    h("tr", { class: "total", "data-part": "total" }, h("th", { scope: "row", text: t("parts.total") }),
      h("td", { class: "num", text: fmtSigned(total) }))));
}

// The part that tells a runner-up from the best most, in a sentence: "It gets 5.000
// units less from royalties than the best setting."
function partsWhy(a, best, unit) {
  if (!a.ev_parts || !best) return "";
  let top = null;
  for (const p of PARTS) {
    const d = a.ev_parts[p] - best[p];
    if (top === null || Math.abs(d) > Math.abs(top[1])) top = [p, d];
  }
  if (!top || Math.abs(top[1]) < 0.0005) return "";
  // said in a sentence (issue 53): what it gets less (or more) of, and from what
  const vars = { n: num(Math.abs(top[1])), part: partName(top[0]), unit };
  return top[1] < 0 ? t("alt.whyLess", vars) : t("alt.whyMore", vars);
}

// hands: the rows named (nameSettings) of the best setting and of each runner-up.
function renderAnswer(d, timing, hands = null) {
  const nOpp = d.players - 1;
  const named = (i) => (hands && hands[i]) || null;
  const rows = h("table", { class: "setting" },
    h("thead", {}, h("tr", {}, h("th", { text: t("answer.row") }), h("th", { text: t("answer.cards") }), h("th", { text: t("answer.wtl") }))),
    h("tbody", {}, ROWS.map((r) => h("tr", { "data-row": r, "data-cards": d[r] },
      h("th", { scope: "row", text: rowName(r) }), h("td", {}, cardsLine(d[r]), handTag(named(0) && named(0)[r])),
      h("td", {}, rowBar(d.row_stats && d.row_stats[r]))))));
  const se = d.stderr;
  // a declared natural is paid, not played: no ± (that is the playing setting's), and
  // the rows and the value's parts only as "if you played it"
  const declared = d.action === "declare" && d.natural;
  const mcErr = !declared && se !== null && se !== undefined && d.policy === "mc";
  // in the table's unit (水, chi, …); the estimate's margin and the seed under "Advanced"
  const unit = unitWord(d.rules);
  const ev = h("p", { class: "ev" },
    h("strong", { class: "ev-value", text: fmtSigned(d.ev) }), " ", units(unit), " · ",
    h("strong", { class: "ev-total", text: fmtSigned(d.ev_total) }),
    " ", tp("answer.table", nOpp, { unit }), declared ? h("span", { class: "declared-note", text: ` · ${declaredNote(d)}` }) : null);
  const advice = adviceText(d.action) + (declared ? `: ${naturalLabel(d.natural.name)}` : "");
  // a declared natural's 13 cards, drawn as its grouping (a dragon 2 to A, three
  // flushes flush by flush): what the table sees when it is shown
  const shown = declared ? h("div", { class: "natural-cards", "aria-label": naturalLabel(d.natural.name) },
    ROWS.map((r) => h("div", { class: "natural-group", "data-row": r, "data-cards": d[r] }, cardsLine(d[r])))) : rows;
  const parts = [h("p", { class: `advice advice-${d.action}`, "data-action": d.action }, advice), shown, ev];
  if (d.ev_by_opponent && d.ev_by_opponent.length > 1) {
    parts.push(h("p", { class: "note by-opponent" }, term(t("answer.byOpponent"), "g-seat"), " ",
      d.ev_by_opponent.map((x, i) => t("answer.seat", { n: i + 1, ev: fmtSigned(x) })).join(" · ")));
  }
  if (d.stakes) parts.push(h("p", { class: "note" }, t("answer.staked", { ev: fmtSigned(d.ev_staked, 2), stakes: d.stakes.join(", ") })));
  if (d.natural) {
    const n = d.natural;
    parts.push(h("p", { class: "natural" },
      t("answer.natural", { name: naturalLabel(n.name), declare: fmtSigned(n.ev_declare), play: fmtSigned(n.ev_play) }), " ",
      h("strong", { text: n.declared ? t("answer.declareIt") : t("answer.playIt") })));
  }
  const sur = d.surrender;
  parts.push(h("p", { class: "surrender" }, sur.cost === null
    ? t("answer.noSurrender")
    : t("answer.surrender", { cost: plain(sur.cost), verdict: sur.recommended ? t("answer.recommended") : t("answer.notRecommended") })));
  const partsEl = partsTable(d.ev_parts, d.ev_play, "parts", royaltySources(named(0)));
  if (declared) {
    parts.push(h("details", { class: "if-played" },
      h("summary", { text: t("answer.ifPlayed", { play: fmtSigned(d.ev_play) }) }), rows, partsEl));
  } else if (partsEl) {
    parts.push(partsEl);
  }
  if (d.alternatives && d.alternatives.length) {
    parts.push(h("h3", {}, term(t("answer.runnersUp"), "g-runners-up")), h("div", { class: "alts-wrap" }, h("table", { class: "alts" },
      h("thead", {}, h("tr", {}, [rowName("front"), rowName("middle"), rowName("back"), t("answer.units", { unit }), t("alt.vsBest"), t("alt.why")].map((c) => h("th", { text: c })))),
      h("tbody", {}, d.alternatives.map((a, i) => h("tr", {},
        ROWS.map((r) => h("td", { "data-label": rowName(r) }, cardsLine(a[r]), handTag(named(i + 1) && named(i + 1)[r]))),
        h("td", { class: "num", "data-label": t("answer.units", { unit }), text: fmtSigned(a.ev) }),
        h("td", { class: "num", "data-label": t("alt.vsBest"), text: fmtSigned(a.diff) + (a.diff_stderr ? ` ± ${num(a.diff_stderr)}` : "") }),
        h("td", { class: "why", "data-label": t("alt.why"), text: partsWhy(a, d.ev_parts, unit) || null })))))));
  }
  parts.push(h("details", { class: "how-more" }, h("summary", { class: "note", text: t("answer.more") }),
    h("p", { class: "note how" },
      `${describeHow(d)} · ${t("how.scored", { n: plain(d.candidates ?? "?") })} · ${t("how.rules", { rules: gameName(d.rules), players: d.players })}`),
    mcErr ? h("p", { class: "note margin" }, t("answer.margin", { se: num(se), total: num(se * nOpp), unit })) : null));
  if (timing) parts.push(timingLine(timing));
  return h("div", { class: "answer" }, parts);
}

// What declaring pays: "a fixed payment: each opponent pays 5" when the value is the
// ruleset's payout for the natural, else paid without playing (an opponent's stronger
// natural may take it).
function declaredNote(d) {
  const rules = [...state.rulesets.values()].find((r) => r.name === d.rules);
  const entry = rules && rules.naturals.find((n) => n.name === d.natural.name);
  if (entry && Math.abs(entry.units - d.natural.ev_declare) < 5e-7) return t("answer.declaredFixed", { units: plain(entry.units) });
  return t("answer.declaredPaid");
}

function timingLine(tm) {
  const page = tm.pageMs ?? performance.now() - tm.t0;
  tm.pageMs = page;
  const server = tm.serverMs === null ? "" : ` ${t("timing.server", { ms: num(tm.serverMs, 0) })}`;
  return h("p", {
    class: "note timing", "data-server-ms": tm.serverMs ?? "", "data-page-ms": page.toFixed(1),
  }, t("timing.answered", { ms: num(page, 0) }) + server);
}

function showAnswer(d, timing, scroll = true) {
  const el = renderAnswer(d, timing, state.answer && state.answer.hands);
  $("#answer").replaceChildren(el);
  $("#share").hidden = false;
  setError("#share-status", "");
  if (scroll) el.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "instant" });
}

function clearAnswer() {
  state.answer = null;
  $("#answer").replaceChildren();
  $("#share").hidden = true;
}

// One request at a time. The button stays focusable (aria-disabled, not disabled), so
// the keyboard does not lose its place while the answer is worked out.
async function withBusy(button, errorSel, fn) {
  if (state.busy) return;
  state.busy = true;
  const label = button.textContent;
  button.setAttribute("aria-disabled", "true");
  button.setAttribute("aria-busy", "true");
  button.textContent = t("busy");
  try {
    await fn();
  } catch (e) {
    setError(errorSel, e.message);
  } finally {
    state.busy = false;
    button.removeAttribute("aria-disabled");
    button.removeAttribute("aria-busy");
    if (button.textContent === t("busy")) button.textContent = label; // unless fn renamed it
  }
}

async function solveHand() {
  setError("#solve-error", "");
  const text = $("#hand-input").value;
  const problem = handProblem(text);
  if (problem !== null) {
    clearAnswer();
    setError("#solve-error", t("error.cannotSolve", { problem }));
    $("#hand-input").focus();
    return;
  }
  await withBusy($("#solve"), "#solve-error", async () => {
    const body = { hand: cardsText(sortCards(state.picked)), ...tableOptions() };
    let res;
    try {
      res = await api("/api/solve", body);
    } catch (e) {
      clearAnswer(); // never an answer for other cards or options beside the error
      throw e;
    }
    const hands = await nameSettings([res.data, ...(res.data.alternatives || [])].map(settingOf));
    state.answer = { data: res.data, timing: res, hands };
    state.checked = null;
    showAnswer(res.data, res);
    const link = shareLink("solve", res.data);
    state.answer.link = link;
    remember(res.data, link);
  });
}

// ------------------------------------------------------------------ links, copying, history

// The page's options in the URL's fragment, with the seed the answer used: a reload or
// the link elsewhere gives the same answer.
function shareLink(mode, d, played = null) {
  const p = new URLSearchParams();
  p.set("mode", mode);
  p.set("hand", d.hand);
  const v = $("#rules").value;
  if (state.uploaded.has(v)) {
    const toml = state.uploaded.get(v);
    if (toml.length <= TOML_IN_LINK) p.set("rules_toml", toml);
  } else {
    p.set("rules", v);
  }
  p.set("players", String(d.players));
  if (jokersAsked() !== null) p.set("jokers", String(jokersAsked()));
  p.set("policy", $("#policy").value);
  if ($("#policy").value === "mc") {
    if (d.samples) p.set("samples", String(d.samples));
    if (d.seed !== null && d.seed !== undefined) p.set("seed", String(d.seed));
    if ($("#opponents").value !== "field") p.set("opponents", $("#opponents").value);
  }
  if (played) p.set("played", played);
  const url = new URL(location.href);
  url.hash = p.toString();
  history.replaceState(null, "", url.href);
  return url.href;
}

async function restoreFromLink() {
  if (!location.hash || location.hash.length < 2) return false;
  const p = new URLSearchParams(location.hash.slice(1));
  const hand = p.get("hand");
  if (!hand) return false;
  if (p.get("rules_toml")) {
    try {
      const text = p.get("rules_toml");
      const { data } = await api("/api/rules", { rules: text });
      addUploaded(text, data, "link");
      rulesChanged();
    } catch (e) {
      setError("#rules-status", e.message);
      return false;
    }
  } else if (p.get("rules") && state.rulesets.has(p.get("rules"))) {
    $("#rules").value = p.get("rules");
    rulesChanged();
  }
  if (p.get("players")) playersMenu(state.rulesets.get($("#rules").value), p.get("players"));
  jokersMenu(state.rulesets.get($("#rules").value), p.get("jokers") ?? $("#jokers").value);
  deckChanged();
  if (p.get("policy")) $("#policy").value = p.get("policy");
  syncPolicy();
  if (p.get("samples")) $("#samples").value = p.get("samples");
  if (["field", "greedy", "safe"].includes(p.get("opponents"))) $("#opponents").value = p.get("opponents");
  $("#seed").value = p.get("seed") || "";
  setHandText(hand);
  const mode = p.get("mode") === "check" ? "check" : "solve";
  setMode(mode);
  if (mode === "solve") {
    await solveHand();
  } else if (p.get("played")) {
    const played = p.get("played");
    if (played === "declare" || played === "surrender") {
      await checkAction(played);
    } else {
      const rows = copiesAcross(played.split("|").map((r) => splitCards(r.trim())));
      if (rows.length === 3) {
        ROWS.forEach((r, i) => { state.rows[r] = sortCards(rows[i]); });
        setTarget("front");
        await checkSetting();
      }
    }
  }
  return true;
}

function answerText(d, link) {
  const lines = [`capsa: ${d.hand}`, `${d.rules}, ${d.players} ${t("share.players")} · ${describeHow(d)}`];
  lines.push(`${adviceText(d.action)}${d.action === "declare" && d.natural ? `: ${naturalLabel(d.natural.name)}` : ""}`);
  for (const r of ROWS) lines.push(`${rowName(r)}: ${shapeSort(splitCards(d[r])).map(cardText).join(" ")}`);
  lines.push(`${fmtSigned(d.ev)} ${t("answer.units", { unit: unitWord(d.rules) })}`);
  lines.push(link);
  return lines.join("\n");
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    setError("#share-status", "");
    $("#share-status").textContent = t("share.copied");
  } catch (e) {
    // no clipboard permission: select the text so that the keyboard can copy it
    const area = h("textarea", { class: "copy-fallback", readonly: true, "aria-label": t("share.copyLink") });
    area.value = text;
    $("#share").append(area);
    area.select();
    $("#share-status").textContent = t("share.failed");
  }
}

// The stored history is the browser's, not ours: read entry by entry, and an entry that
// is not what remember() writes (null, a number for a hand, a link to another origin...)
// is dropped, never shown and never allowed to stop the page.
function historyEntry(x) {
  if (!x || typeof x !== "object" || Array.isArray(x)) return false;
  if (typeof x.hand !== "string" || typeof x.rules !== "string" || typeof x.link !== "string") return false;
  if (splitCards(x.hand).length !== 13) return false;
  if (x.players !== undefined && !(Number.isInteger(x.players) && x.players >= 2 && x.players <= 6)) return false;
  if (x.samples !== undefined && x.samples !== null && !Number.isFinite(x.samples)) return false;
  if (x.opponents !== undefined && x.opponents !== null && typeof x.opponents !== "string") return false;
  if (typeof x.policy !== "string") return false;
  if (x.played !== null && x.played !== undefined) {
    if (typeof x.played !== "object" || !Number.isFinite(Number(x.played.loss))) return false;
  } else if (adviceText(x.action) === undefined || !(x.ev === null || Number.isFinite(x.ev))) {
    return false;
  }
  try {
    return new URL(x.link, location.href).origin === location.origin;
  } catch (e) {
    return false;
  }
}

function loadHistory() {
  try {
    const list = JSON.parse(localStorage.getItem(HISTORY_KEY));
    return Array.isArray(list) ? list.filter(historyEntry) : [];
  } catch (e) {
    return [];
  }
}

function forgetHistory() {
  try { localStorage.removeItem(HISTORY_KEY); } catch (e) { /* storage off */ }
  renderHistory();
}

function remember(d, link, played = null) {
  const item = {
    hand: d.hand, rules: d.rules, policy: d.policy, seed: d.seed, action: d.action,
    ev: d.ev, link, played: played ? { action: played.action || "play", loss: played.loss } : null,
    players: d.players, samples: d.samples, opponents: d.opponents || null,
  };
  const list = [item, ...loadHistory().filter((x) => x.link !== link)].slice(0, HISTORY_MAX);
  try { localStorage.setItem(HISTORY_KEY, JSON.stringify(list)); } catch (e) { /* full or off */ }
  renderHistory();
}

function renderHistory() {
  const list = loadHistory();
  const ol = $("#history-list");
  if (!list.length) {
    ol.replaceChildren(h("li", { class: "note", text: t("history.empty") }));
    return;
  }
  ol.replaceChildren(...list.map((x) => h("li", {},
    h("a", { href: x.link, class: "history-link", "aria-label": splitCards(x.hand).map(cardName).join(", "),
      onclick: (e) => { e.preventDefault(); openLink(x.link); } }, cardsLine(x.hand)),
    " ", h("span", { class: "history-table", text: historyTable(x) }), " · ",
    h("strong", { text: x.played ? t("history.checked", { loss: num(Number(x.played.loss)) }) : `${adviceText(x.action)} ${fmtSigned(x.ev)}` }))));
}

// What an entry was asked, so that two answers for one hand can be told apart: the game,
// the players, and how it was solved (policy, opponent hands, seed, opponents), as the
// answer itself says it. An entry stored before these were kept shows what it has.
function historyTable(x) {
  const d = state.rulesets.get(x.rules);
  const parts = [d ? gameName(x.rules) : x.rules];
  if (Number.isInteger(x.players)) parts.push(tp("table.players", x.players));
  if (x.policy !== "mc" || Number.isFinite(x.samples)) parts.push(describeHow(x));
  return parts.join(" · ");
}

async function openLink(link) {
  history.replaceState(null, "", link);
  await restoreFromLink();
}

// ------------------------------------------------------------------ the board

// Rows of cards (text), a card's second appearance in the setting its second copy.
function copiesAcross(rows) {
  const all = withCopies(rows.flat());
  let at = 0;
  return rows.map((r) => all.slice(at, (at += r.length)));
}

function placed() {
  return new Set(ROWS.flatMap((r) => state.rows[r]));
}

function resetBoardFromHand(keep = false) {
  const hand = new Set(handCards());
  for (const r of ROWS) state.rows[r] = keep ? state.rows[r].filter((c) => hand.has(c)) : [];
  if (!keep) {
    $("#hint-note").textContent = "";
    $("#hint-choices").replaceChildren();
    $("#showdown").replaceChildren();
    state.table = null;
    $("#check-result").replaceChildren();
    state.checked = null;
  }
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
    setError("#check-error", t("check.rowFull", { row: rowName(to), n: ROW_SIZE[to] }));
    return;
  }
  for (const r of ROWS) state.rows[r] = state.rows[r].filter((x) => x !== c);
  if (to !== "pool") state.rows[to] = sortCards([...state.rows[to], c]);
  setError("#check-error", "");
  if (targetAfter) state.target = targetAfter;
  setTarget(nextTarget());
}

function boardCard(c, where) {
  const b = cardFace(c, "button", {
    type: "button", class: `card ${cardClass(c)}`,
    "aria-label": where === "pool"
      ? t("board.put", { card: cardName(c), row: rowName(state.target) })
      : t("board.takeBack", { card: cardName(c), row: rowName(where) }),
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
  return b;
}

function renderBoard() {
  const hand = handCards();
  const inRows = placed();
  for (const r of ROWS) {
    const zone = document.querySelector(`.cards[data-row="${r}"]`);
    zone.replaceChildren(...shapeSort(state.rows[r]).map((c) => boardCard(c, r)));
    zone.dataset.cards = cardsText(state.rows[r]);
    document.querySelector(`.row-target[data-row="${r}"] .count`).textContent = `${state.rows[r].length}/${ROW_SIZE[r]}`;
  }
  const pool = $("#pool");
  const left = hand.filter((c) => !inRows.has(c));
  // in the whole hand's shape order, which stays put as cards leave (the keyboard's place)
  const order = state.poolSort === "suit"
    ? [...hand].sort((a, b) => (isJoker(b) - isJoker(a)) || (SUITS.indexOf(b[1]) - SUITS.indexOf(a[1])) || (rankIndex(b) - rankIndex(a)))
    : shapeSort(hand);
  pool.replaceChildren(...order.filter((c) => !inRows.has(c)).map((c) => boardCard(c, "pool")));
  $("#sort-pool").textContent = state.poolSort === "suit" ? t("board.sortRank") : t("board.sortSuit");
  pool.dataset.cards = cardsText(left);
  if (!hand.length) {
    pool.append(h("span", { class: "note", text: state.mode === "practice" ? t("pool.dealFirst") : t("pool.pickFirst") }));
  }
  nameBoard();
}

// Under each row while it is set: its hand once it is full, and a foul warning naming
// the rows as soon as two full rows are out of order (the server names them).
async function nameBoard() {
  const ask = ++state.liveAsk;
  const show = (named) => {
    for (const r of ROWS) {
      const el = document.querySelector(`.slot[data-row="${r}"] .row-hand`);
      const info = named && named[r];
      el.textContent = handLabel(info);
      el.dataset.class = (info && info.class) || "";
    }
    const warn = $("#foul-warning");
    warn.textContent = foulText(named, (v) => t("board.foul", v));
    warn.dataset.row = (named && named.foul && named.foul.row) || "";
  };
  if (!ROWS.some((r) => state.rows[r].length === ROW_SIZE[r])) {
    show(null);
    return;
  }
  const named = await nameSettings([ROWS.map((r) => cardsText(state.rows[r])).join(" | ")]);
  if (ask === state.liveAsk) show(named && named[0]);
}

// Declare (when the hand holds a natural under the ruleset) and Surrender (when the
// ruleset allows it) beside Check.
async function updateBoardActions(force = false) {
  const hand = handCards();
  const declare = $("#declare");
  const surrender = $("#surrender");
  if (state.mode === "solve" || hand.length !== 13) {
    declare.hidden = surrender.hidden = true;
    return;
  }
  const key = `${hand.join(" ")}|${$("#rules").value}|${$("#players").value}|${jokersAsked()}`;
  if (force || !state.handInfo || state.handInfo.key !== key) {
    state.handInfo = { key, natural: null, surrender: null };
    try {
      const { data } = await api("/api/natural", { hand: cardsText(hand), ...seatOptions() });
      if (state.handInfo.key !== key) return; // another hand came meanwhile
      state.handInfo = { key, natural: data.natural, surrender: data.surrender };
    } catch (e) {
      setError("#check-error", e.message);
    }
  }
  const info = state.handInfo;
  declare.hidden = !info.natural;
  if (info.natural) declare.textContent = t("board.declareName", { name: naturalLabel(info.natural.name) });
  surrender.hidden = info.surrender === null || info.surrender === false;
  if (!surrender.hidden) surrender.textContent = t("board.surrenderCost", { cost: plain(info.surrender) });
}

function setupBoard() {
  for (const b of $$(".row-target")) b.addEventListener("click", () => setTarget(b.dataset.row));
  $("#board-panel").addEventListener("keydown", (e) => {
    if (e.target.matches("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    const row = { f: "front", m: "middle", b: "back", 1: "front", 2: "middle", 3: "back" }[e.key.toLowerCase()];
    if (row) {
      e.preventDefault();
      const inPool = Boolean(e.target.closest("#pool")); // before the pool is drawn again
      setTarget(row);
      const first = $("#pool button");
      if (first && !inPool) first.focus();
      else if (first) (document.querySelector(`#pool [data-card="${e.target.dataset.card}"]`) || first).focus();
    }
  });
  setupDrag();
  $("#reset-board").addEventListener("click", () => resetBoardFromHand());
  $("#played-input").addEventListener("input", typedSetting);
  $("#hint").addEventListener("click", hintSetting);
  for (const b of $$(".swap-pair")) b.addEventListener("click", () => swapRows(...b.dataset.swap.split(" ")));
  $("#sort-pool").addEventListener("click", () => { state.poolSort = state.poolSort === "suit" ? "rank" : "suit"; renderBoard(); });
  $("#played-input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && typedSetting()) checkSetting();
  });
  $("#check").addEventListener("click", checkSetting);
  $("#declare").addEventListener("click", () => checkAction("declare"));
  $("#surrender").addEventListener("click", () => checkAction("surrender"));
  $("#deal").addEventListener("click", dealPractice);
}

// Drag and drop as well as tap, by mouse, pen or touch: a card dragged from the cards to
// place to a row, from a row to another, or back. SortableJS (its pointer fallback on
// every device, so touch drags as a mouse does) moves the card's element; the page then
// moves the card in its own state and draws the board again, as a tap does. A full row
// takes no more cards.
function setupDrag() {
  if (typeof Sortable === "undefined") return; // the page still works by tap
  const room = (zone) => zone.dataset.row === "pool" || state.rows[zone.dataset.row].length < ROW_SIZE[zone.dataset.row];
  for (const zone of $$(".dropzone")) {
    // A finger on a card leaves the box typed in (the hand): SortableJS clears the
    // selection as a drag begins, and with the caret still in a box, Chromium on a phone
    // then scrolls that box (at the top of the page) into view as the finger moves.
    zone.addEventListener("pointerdown", () => {
      const a = document.activeElement;
      if (a && a !== document.body && (a.matches("input, textarea, select") || a.isContentEditable)) a.blur();
    }, true);
    Sortable.create(zone, {
      group: { name: "board", pull: true, put: (to) => room(to.el) },
      sort: false, forceFallback: true, fallbackTolerance: 4, animation: 0, delay: 120, delayOnTouchOnly: true,
      draggable: "button.card", ghostClass: "drag-ghost", chosenClass: "drag-chosen",
      onEnd: (e) => {
        const c = e.item.dataset.card;
        // the zone under the point of release (a quick flick ends before the library
        // has looked under it), else the one the library found
        const ev = e.originalEvent;
        const p = ev && ev.changedTouches ? ev.changedTouches[0] : ev;
        const under = p && Number.isFinite(p.clientX) ? document.elementFromPoint(p.clientX, p.clientY) : null;
        const zone = (under && under.closest(".dropzone")) || e.to;
        const from = e.from.dataset.row;
        if (zone.dataset.row === from || !handCards().includes(c)) { renderBoard(); return; }
        moveCard(c, zone.dataset.row);
      },
    });
  }
}

// A setting typed or pasted: "front | middle | back" in any notation the hand box reads
// (the page's language's letters, the symbols). Its 13 cards become the hand, its rows
// the board's; what is wrong is said in one line, naming the row.
// The three rows of a typed setting, read as one text (a setting in English letters is
// read so in every row; docs/serve.md#cards), each row's own error kept.
function readRows(parts) {
  const whole = readCards(parts.join(" "));
  if (whole.how !== "english") return parts.map((part) => ({ ...readCards(part), ambiguous: whole.ambiguous }));
  return parts.map((part) => ({ ...parseCards(part, "en"), how: "english", letter: whole.letter }));
}

function typedSetting() {
  const text = $("#played-input").value;
  const status = $("#played-status");
  const say = (message, ok = false) => {
    status.textContent = message;
    status.classList.toggle("bad", !ok && message !== "");
    status.dataset.ok = ok ? "true" : "false";
    return ok;
  };
  if (!text.trim()) return say("");
  const parts = text.split("|");
  if (parts.length !== 3) return say(t("played.rows", { n: parts.length }));
  const parsed = readRows(parts);
  for (const [i, r] of ROWS.entries()) {
    if (parsed[i].bad !== null) return say(t("played.notCard", { row: rowName(r), bad: parsed[i].bad }));
    if (parsed[i].ambiguous) return say(readingNote(parsed[i]));
    if (parsed[i].cards.length !== ROW_SIZE[r]) return say(t("played.size", { row: rowName(r), n: ROW_SIZE[r], got: parsed[i].cards.length }));
  }
  const twice = copyTooMany(parsed.flatMap((r) => r.cards)); // as often as the deck holds it
  if (twice) return say(tooMany(twice, parsed.flatMap((r) => r.cards), cardInError));
  const rows = copiesAcross(parsed.map((r) => r.cards)).map((cards) => ({ cards }));
  const cards = rows.flatMap((r) => r.cards);
  if (sortCards(cards).join(" ") !== sortCards(state.picked).join(" ")) {
    $("#hand-input").value = writeCards(sortCards(cards));
    state.picked = new Set(cards);
    handChanged();
  }
  ROWS.forEach((r, i) => { state.rows[r] = sortCards(rows[i].cards); });
  setTarget("front");
  updateBoardActions();
  const note = readingNote(parsed.find((p) => p.how) || {});
  const ready = t("played.ready", { cards: ROWS.map((r, i) => rows[i].cards.map(cardText).join(" ")).join(" | ") });
  return say(note ? `${ready} · ${note}` : ready, true);
}

// A hint, as the apps' "xếp bài" / 自动摆牌 / "3 suggestions": the best setting (the
// instant field answer) laid on the board, and it and the best two of other shapes
// offered beside the button, each named by its rows' hands (the score still counts what
// is checked). When the advice is to declare the hand's natural, the answer's rows are
// the natural's cards (docs/solve.md): they are laid, the note says to declare it, and
// the first suggestion is named as the declaring it is, not as rows to play.
async function hintSetting() {
  const hand = handCards();
  if (hand.length !== 13) {
    setError("#check-error", state.mode === "practice" ? t("check.dealFirst") : t("check.pickFirst"));
    return;
  }
  await withBusy($("#hint"), "#check-error", async () => {
    const { data } = await api("/api/solve", { hand: cardsText(hand), ...seatOptions(), policy: "field", top: 2 });
    const choices = [data, ...(data.alternatives || [])].slice(0, 3);
    const named = await nameSettings(choices.map(settingOf));
    const lay = (x) => {
      const rows = copiesAcross(ROWS.map((r) => splitCards(x[r])));
      ROWS.forEach((r, i) => { state.rows[r] = sortCards(rows[i]); });
      setTarget("front");
    };
    lay(data);
    const declare = data.action === "declare" && data.natural ? naturalLabel(data.natural.name) : null;
    $("#hint-note").textContent = declare === null ? t("board.hintUsed") : t("board.hintDeclare", { name: declare });
    $("#hint-choices").replaceChildren(...choices.map((x, i) => h("button", {
      type: "button", class: "hint-choice", "data-setting": settingOf(x), onclick: () => lay(x),
      ...(i === 0 && declare !== null ? { "data-action": "declare" } : {}),
    }, h("strong", { text: t("board.suggestion", { n: plain(i + 1) }) }), " ",
    i === 0 && declare !== null ? t("board.declareName", { name: declare }) : hintLabel(choices, named, i),
    " ", h("span", { class: "note", text: `${fmtSigned(x.ev)} ${t("answer.units")}` }))));
  });
}

// A suggestion named by its rows' hands ("pair · pair · two pair"), and where another
// suggestion has the same hands, by what differs: the cards of the rows it sets otherwise
// ("front A♦ A♥ 6♠"), so that no two suggestions read alike.
function hintLabel(choices, named, i) {
  const hands = (k) => ROWS.map((r) => (named && named[k] ? handName(named[k][r].class) : choices[k][r])).join(" · ");
  const own = hands(i);
  const alike = choices.map((_, k) => k).filter((k) => k !== i && hands(k) === own);
  const differ = ROWS.filter((r) => alike.some((k) => sortCards(splitCards(choices[k][r])).join(" ") !== sortCards(splitCards(choices[i][r])).join(" ")));
  if (!differ.length) return own;
  return `${own} — ${differ.map((r) => `${rowName(r)} ${shapeSort(splitCards(choices[i][r])).map(cardText).join(" ")}`).join(" · ")}`;
}

// Swap two rows (docs/serve.md, "Swap"): rows of one size (the middle and the back)
// exchange their cards, the quick mend of a foul. With the three-card front, the five-card
// row takes the front's cards, and the front the first three of the other row as it is
// laid out (its made part first: a pair or trips stays together); the other cards of the
// five-card row go back to the cards to place.
function swapRows(a, b) {
  const [small, big] = ROW_SIZE[a] <= ROW_SIZE[b] ? [a, b] : [b, a];
  const bigCards = shapeSort(state.rows[big]);
  state.rows[big] = sortCards(state.rows[small]);
  state.rows[small] = sortCards(bigCards.slice(0, ROW_SIZE[small]));
  setError("#check-error", "");
  setTarget(nextTarget());
}

// The swap buttons name the rows in the page's language.
function nameSwaps() {
  for (const b of $$(".swap-pair")) {
    const [a, c] = b.dataset.swap.split(" ");
    b.textContent = t("board.swapPair", { a: rowName(a), b: rowName(c) });
    b.setAttribute("aria-label", t("board.swapAria", { a: rowName(a), b: rowName(c) }));
  }
}

function playedText() {
  return ROWS.map((r) => cardsText(state.rows[r])).join(" | ");
}

async function checkSetting() {
  setError("#check-error", "");
  const hand = handCards();
  if (hand.length !== 13) {
    setError("#check-error", state.mode === "practice" ? t("check.dealFirst") : t("check.pickFirst"));
    return;
  }
  const missing = ROWS.filter((r) => state.rows[r].length !== ROW_SIZE[r]);
  if (missing.length) {
    const left = 13 - placed().size;
    setError("#check-error", tp("check.placeAll", left));
    return;
  }
  await runCheck($("#check"), playedText());
}

// Declare the natural, or surrender: what that choice is worth next to the advice.
async function checkAction(action) {
  setError("#check-error", "");
  if (handCards().length !== 13) {
    setError("#check-error", state.mode === "practice" ? t("check.dealFirst") : t("check.pickFirst"));
    return;
  }
  await runCheck($(action === "declare" ? "#declare" : "#surrender"), action);
}

async function runCheck(button, played) {
  const hand = handCards();
  await withBusy(button, "#check-error", async () => {
    let res;
    try {
      res = await api("/api/check", { hand: cardsText(hand), played, ...tableOptions() });
    } catch (e) {
      $("#check-result").replaceChildren(); // no stale verdict beside the error
      state.checked = null;
      throw e;
    }
    const d = res.data;
    const hands = d.played.action && d.played.action !== "play" ? null
      : await nameSettings([settingOf(d.played), settingOf(d), ...(d.alternatives || []).map(settingOf)]);
    state.checked = { data: d, timing: res, hands };
    const el = renderCheck(d, res, hands);
    $("#check-result").replaceChildren(el);
    el.scrollIntoView({ block: "start", behavior: "instant" });
    if (state.mode === "check") {
      const link = shareLink("check", res.data, played);
      remember(res.data, link, res.data.played);
    }
    if (state.mode === "practice" && state.dealt) {
      const table = await playTable(played);
      if (!state.dealt.scored) {
        state.dealt.scored = true;
        addScore(res.data.played, table ? table.units : null);
        $("#deal").textContent = t("practice.next");
      }
    }
  });
}

// hands: the rows named of the played setting, the best and the runners-up.
function renderCheck(d, timing, hands = null) {
  const p = d.played;
  const mine = hands && hands[0];
  const best = (r) => hands && hands[1] && hands[1][r];
  const action = p.action || "play";
  const isBest = p.loss !== null && Math.abs(p.loss) < 5e-7;
  let verdict;
  if (p.fouled) {
    // what a foul costs under these rules: a flat payment to each opponent (binh lủng), or
    // every opponent scooping you
    const flat = flatFoul();
    const why = flat === null ? foulText(mine, (v) => t("check.fouledRow", v)) || t("check.fouledWhy")
      : foulText(mine, (v) => t("check.fouledRowFlat", { ...v, n: plain(flat) })) || t("check.fouledWhyFlat", { n: plain(flat) });
    verdict = h("p", { class: "verdict fouled", "data-fouled": "true", "data-flat": flat === null ? "false" : "true" },
      h("strong", { text: t("check.fouled") }), " ", why);
  } else {
    const text = isBest ? (action === "play" ? t("check.best") : t("check.bestAction")) : t("check.costs", { loss: num(p.loss) });
    verdict = h("p", { class: `verdict ${isBest ? "best" : "costly"}`, "data-fouled": "false", "data-action": action }, h("strong", { text }));
  }
  const se = p.loss_stderr ? ` ± ${num(p.loss_stderr)}` : "";
  const chose = action === "play" ? t("check.yours")
    : action === "declare" ? t("check.declared", { name: d.natural ? naturalLabel(d.natural.name) : "" })
      : t("check.surrendered");
  // "3 of the 92 settings scored are better" rather than "rank 4 of 92"
  const better = p.rank === null || p.rank === undefined ? null : p.rank - 1;
  const rank = better === null ? "" : ` · ${better === 0 ? t("check.noneBetter", { of: plain(p.of) }) : tp("check.better", better, { of: plain(p.of) })}`;
  const value = h("p", { class: "ev" }, chose, " ", h("strong", { class: "played-ev", text: fmtSigned(p.ev) }),
    " ", units(), " · ", t("check.loss"), " ", h("strong", { class: "played-loss", text: fmtSigned(-p.loss) }), se, rank);
  const out = [verdict, value];
  if (action === "play") {
    out.push(h("div", { class: "compare-wrap" }, h("table", { class: "compare" },
      h("thead", {}, h("tr", {}, [t("answer.row"), t("check.colYours"), t("check.colBest"), t("check.colWin")].map((c) => h("th", { text: c })))),
      h("tbody", {}, ROWS.map((r) => {
        const row = p.rows[r];
        return h("tr", { "data-row": r, class: row.differs ? "differs" : "same", "data-differs": String(row.differs) },
          h("th", { scope: "row" }, rowName(r), row.differs ? h("span", { class: "differs-tag", text: ` ${t("check.differs")}` }) : ""),
          h("td", { "data-label": t("check.colYours") }, cardsLine(p[r]), handTag(mine && mine[r])),
          h("td", { "data-label": t("check.colBest") }, cardsLine(d[r]), handTag(best(r))),
          // your row's chance to win it, beside the best setting's: "4.7% (best 69.9%)", a
          // chance beside a chance (not a difference in points)
          h("td", { class: "num win-chance", "data-label": t("check.colWin") },
            row.win_change === null || row.win_change === 0 || !row.differs ? pct(row.win)
              : t("check.winChance", { p: pct(row.win), best: pct(row.win - row.win_change) })));
      })))));
  }
  if (p.ev_parts && d.ev_parts) out.push(partsLost(d.ev_parts, d.ev_play, p.ev_parts, p.ev, p.fouled && flatFoul() !== null));
  out.push(h("details", { class: "best-answer" }, h("summary", { text: t("check.bestInFull") }), renderAnswer(d, null, hands && hands.slice(1))));
  out.push(timingLine(timing));
  return h("div", { class: "check" }, out);
}

// What the played setting gave up against the best setting, part by part.
// flat: the played setting is fouled under a flat payment, which the solver books with the
// bonuses: shown under its own name (parts.foul), not as a bonus lost.
function partsLost(best, bestEv, mine, mineEv, flat = false) {
  const parts = flat ? [...PARTS, "foul"] : PARTS;
  if (flat) {
    best = { ...best, foul: 0 };
    mine = { ...mine, foul: mine.bonus, bonus: 0 };
  }
  const row = (key, label, a, b) => h("tr", { "data-part": key, class: Math.abs(a - b) >= 0.0005 ? "lost" : "" },
    h("th", { scope: "row", text: label }), h("td", { class: "num", text: fmtSigned(b) }),
    h("td", { class: "num", text: fmtSigned(a) }), h("td", { class: "num part-lost", text: fmtSigned(b - a) }));
  return h("table", { class: "parts-lost" },
    h("caption", {}, term(t("check.partsLost"), "g-parts")),
    h("thead", {}, h("tr", {}, h("th", { text: "" }), h("th", { text: t("check.colYours") }), h("th", { text: t("check.colBest") }), h("th", { text: t("check.colDiff") }))),
    h("tbody", {}, parts.map((p) => row(p, partName(p), best[p], mine[p])), row("total", t("parts.total"), bestEv, mineEv)));
}

// ------------------------------------------------------------------ practice

// The showdown: the same hand, as played, against opponents dealt from the rest of the
// deck (the deal's seed deals them again) and set by the chosen opponents' style; the
// server settles the table (POST /api/table) and the page shows it pair by pair and row
// by row, the scoops, the home run and the naturals declared named in the table's words.
async function playTable(played) {
  const body = { hand: cardsText(state.dealt.hand), played, ...seatOptions(), seed: state.dealt.seed };
  if ($("#opponents").value !== "field") body.opponents = $("#opponents").value;
  try {
    const { data } = await api("/api/table", body);
    state.table = data;
    $("#showdown").replaceChildren(renderTable(data));
    $("#showdown").scrollIntoView({ block: "start", behavior: "instant" });
    return data;
  } catch (e) {
    $("#showdown").replaceChildren(h("p", { class: "error", role: "alert", text: e.message }), nextHandButton());
    return null;
  }
}

// The next hand beside the result, not a screen above it.
const nextHandButton = () => h("button", { type: "button", class: "primary next-hand", onclick: dealPractice }, t("practice.next"));

const resultText = (x) => (x > 0 ? t("table.win") : x < 0 ? t("table.loss") : t("table.tie"));
const unitsText = (x) => t("table.units", { units: fmtSigned(x, Number.isInteger(x) ? 0 : 3) });

// A figure of units with only the digits it has (+1, −3, +2.5).
const pointsText = (x) => fmtSigned(x, Number.isInteger(x) ? 0 : Math.min(3, String(x).split(".")[1].length));
// What a pair pays beyond its rows, each named as the table says it (issue 53, item 6):
// 打枪 / bắt sập 3 chi, the majority's unit, the dealt cards' royalties, the flat foul
// payment, the pair cap, the home run, the code card; a natural or a surrender is said
// beside the seat already.
const EXTRA_WORDS = {
  majority: () => t("table.majority"), dealt: () => t("rules.royaltiesDealt"), foul: () => t("parts.foul"),
  cap: () => t("table.cap"), home_run: () => t("table.homeRunPart"), code_card: () => t("table.codeCard"),
};
function pairExtras(p) {
  const items = p.extras.filter((e) => e.kind === "scoop" ? p.scoop : EXTRA_WORDS[e.kind]);
  if (!items.length) return null;
  const label = (e) => e.kind !== "scoop" ? EXTRA_WORDS[e.kind]() : p.scoop === "you" ? t("table.scoopYou") : t("table.scoopThem");
  const parts = items.map((e) => h("span", { class: "extra", "data-kind": e.kind, "data-units": String(e.units) },
    `${label(e)} `, h("strong", { class: e.units < 0 ? "l-text" : "w-text", text: pointsText(e.units) })));
  return h("p", { class: "pair-extras" }, ...parts.flatMap((x, i) => (i ? [" · ", x] : [x])));
}

// What a seat shows: its rows, named, or the natural it declared, or its surrender;
// against an opponent, each row's result said as the player's and what it pays them.
function seatRows(seat, signs = null, points = null) {
  if (seat.action === "declare") {
    return h("p", { class: "declared" }, h("strong", { text: t("table.declares", { name: naturalLabel(seat.natural.name) }) }), " ", cardsLine(seat.cards));
  }
  if (seat.action === "surrender") return h("p", { class: "surrendered", text: t("table.surrenders") });
  return h("table", { class: "showdown-rows" }, h("tbody", {}, ROWS.map((r, i) => h("tr", {
    "data-row": r, "data-result": signs ? String(signs[i]) : null,
  }, h("th", { scope: "row", text: rowName(r) }), h("td", {}, cardsLine(seat.rows[r].cards), handTag(unroyal(seat.rows)[r])),
  signs ? h("td", { class: `result r${signs[i]}`, text: resultText(signs[i]) }) : null,
  points ? h("td", { class: `row-units r${Math.sign(points[i])}`, "data-units": String(points[i]), text: pointsText(points[i]) }) : null))));
}

function renderTable(d) {
  const you = d.seats[0];
  const out = [h("h3", { text: t("table.title") })];
  out.push(h("p", { class: "table-total", "data-units": String(d.units) },
    h("strong", { text: t("table.total", { result: unitsText(d.units) }) })), nextHandButton());
  if (d.home_run !== null) {
    const who = d.home_run === 0 ? t("table.you") : t("table.opponent", { n: plain(d.home_run) });
    out.push(h("p", { class: "home-run", "data-seat": String(d.home_run) }, h("strong", { text: t("table.homeRun", { who, n: plain(state.rulesets.get($("#rules").value)?.rules.home_run_multiplier ?? 2) }) })));
  }
  // a banker's table: the banker's seat marked as the apps mark it (庄)
  const banker = (n) => d.banker === n ? [" ", h("span", { class: "badge banker", title: t("table.bankerNote"), text: t("table.banker") })] : [];
  out.push(h("div", { class: "seat seat-you", "data-seat": "0" }, h("h4", {}, t("table.you"), ...banker(0)), seatRows(you)));
  for (const p of d.pairs) {
    const seat = d.seats[p.seat];
    const extras = pairExtras(p);
    // the scoop beside the opponent's name, unless it is paid (and said) under the rows
    const said = p.extras.some((e) => e.kind === "scoop");
    const scoop = said ? "" : p.scoop === "you" ? t("table.scoopYou") : p.scoop === "them" ? t("table.scoopThem") : "";
    out.push(h("div", { class: "seat", "data-seat": String(p.seat), "data-units": String(p.units), "data-scoop": p.scoop || "" },
      h("h4", {}, t("table.opponent", { n: plain(p.seat) }), ...banker(p.seat), " ", h("span", { class: `pair-units ${p.units < 0 ? "l-text" : "w-text"}`, text: unitsText(p.units) }),
        scoop ? h("span", { class: "scoop", text: ` · ${scoop}` }) : null),
      seatRows(seat, p.rows, p.row_units), extras));
  }
  out.push(h("p", { class: "note", text: t("table.note", { seed: d.seed, who: whoText(d.opponents) }) }));
  return h("div", { class: "table-result" }, out);
}

async function dealPractice() {
  await withBusy($("#deal"), "#check-error", async () => {
    // a hand of the table's deck: at five players it may hold both copies of a heart,
    // with jokers a joker or two
    const extra = deckExtra();
    const res = await api("/api/deal", seatOptions());
    state.dealt = { hand: withCopies(splitCards(res.data.hand)), seed: res.data.seed, scored: false, extra };
    $("#deal-note").textContent = t("practice.dealNote", { seed: res.data.seed });
    $("#deal").textContent = t("practice.dealAnother");
    resetBoardFromHand();
    updateBoardActions();
  });
}

function loadScore() {
  try {
    return JSON.parse(sessionStorage.getItem(SCORE_KEY)) || { hands: 0, loss: 0, best: 0, fouls: 0 };
  } catch (e) {
    return { hands: 0, loss: 0, best: 0, fouls: 0 };
  }
}

function addScore(played, tableUnits = null) {
  const s = loadScore();
  s.hands += 1;
  if (tableUnits !== null) s.table = (s.table || 0) + tableUnits;
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
    el.replaceChildren(h("p", { class: "note", text: t("score.none") }));
    return;
  }
  el.replaceChildren(h("p", { class: "score", "data-hands": s.hands, "data-loss": s.loss.toFixed(6) },
    h("strong", { text: t("score.title") }), " ",
    tp("score.hands", s.hands), ", ",
    t("score.lost", { loss: num(s.loss), mean: num(s.loss / s.hands) }), ", ",
    tp("score.best", s.best), ", ", t("score.fouls", { n: s.fouls }), " ",
    s.table !== undefined ? h("span", { class: "score-table", "data-units": String(s.table) }, t("score.table", { units: unitsText(s.table) }), " ") : null,
    h("button", {
      type: "button", class: "link", onclick: () => { sessionStorage.removeItem(SCORE_KEY); renderScore(); },
    }, t("score.again"))));
}

// ------------------------------------------------------------------ start

function syncPolicy() {
  const mc = $("#policy").value === "mc";
  for (const el of $$(".mc-only")) el.hidden = !mc;
  const def = document.getElementById(`g-${$("#policy").value}`);
  $("#policy").title = def ? def.textContent : "";
}

async function start() {
  $("#history-clear").addEventListener("click", forgetHistory);  // first: always reachable
  buildPicker();
  setupPicker();
  setupTabs();
  setupBoard();
  $("#hand-input").addEventListener("input", () => {
    const { cards } = readCards($("#hand-input").value);
    state.picked = new Set(withCopies(cards));
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
  $("#clear-hand").addEventListener("click", () => { setHandText(""); clearAnswer(); $("#hand-input").focus(); });
  $("#random-hand").addEventListener("click", () => withBusy($("#random-hand"), "#hand-status", async () => {
    const res = await api("/api/deal", seatOptions());
    setHandText(res.data.hand);
  }));
  $("#rules").addEventListener("change", () => { rememberGame(); rulesChanged(); });
  $("#rules-file").addEventListener("change", (e) => uploadRules(e.target.files[0]));
  $("#train-start").addEventListener("click", startTraining);
  $("#policy").addEventListener("change", () => { syncPolicy(); optionsChanged(); });
  $("#opponents").addEventListener("change", optionsChanged);
  for (const sel of ["#players", "#jokers", "#samples", "#seed"]) $(sel).addEventListener("change", optionsChanged);
  $("#copy-answer").addEventListener("click", () => state.answer && copyText(answerText(state.answer.data, state.answer.link)));
  $("#copy-link").addEventListener("click", () => state.answer && copyText(state.answer.link));
  $("#lang").addEventListener("change", () => setLanguage($("#lang").value, true).then(() => {
    const game = storedGame() ? null : firstGame() || (state.defaultRules === CAPSA_DEFAULT ? CAPSA_DEFAULT : null);
    if (game && game !== $("#rules").value && !state.uploaded.has($("#rules").value)) {
      $("#rules").value = game;
      rulesChanged();
    }
  }).catch((e) => setError("#error", e.message)));
  window.addEventListener("hashchange", () => restoreFromLink());
  syncPolicy();
  // on a phone the table's settings start folded behind their one line
  if (matchMedia("(max-width: 40rem)").matches) $("#table-settings").open = false;
  try {
    state.english = await loadCatalogue("en");
    let lang = null;
    try { lang = localStorage.getItem(LANG_KEY); } catch (e) { /* private browsing */ }
    await setLanguage(lang || browserLanguage());
    setMode("solve");
    await loadRules();
    await restoreFromLink();
    document.body.dataset.ready = "true";
  } catch (e) {
    setError("#error", e.message);
  }
}

document.addEventListener("DOMContentLoaded", start);
