// Cards, the board and the words for events: drawn from a game's public view and legal actions only.

export const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

// A rank in words: "ace", "8", "king".
export const rankWord = (rank) => RANK_NAMES[rank] || rank;

// "an ace", "an 8", "a 10", "a king": by how the word is said.
export const aRank = (rank) => `${["A", "8"].includes(rank) ? "an" : "a"} ${rankWord(rank)}`;

function cardName(code) {
  return `${rankWord(code[0])} of ${SUITS[code[1]][1]}`;
}

// A preset as the menu names it: "Osmosis draw one" for osmosis-draw-one.
export function presetTitle(variant) {
  return variant ? variant[0].toUpperCase() + variant.slice(1).replaceAll("-", " ") : "Custom rules";
}

// A rank as a card's corner shows it: "K", "10".
export function rankIndex(rank) {
  return rank === "T" ? "10" : rank;
}

// What a card's corner shows: "K♠", "10♥".
export function cardIndex(code) {
  return `${rankIndex(code[0])}${SUITS[code[1]][0]}`;
}

// "1 card", "3 cards", "1 pass", "2 passes".
export function counted(count, noun, plural = `${noun}s`) {
  return `${count} ${count === 1 ? noun : plural}`;
}

const SVG = "http://www.w3.org/2000/svg";

function drawn(name, attributes, ...children) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  element.append(...children);
  return element;
}

// "10" is drawn narrower, so that its index shows whole where the next card of a fan covers the rest.
function narrowed(rank) {
  return rank === "10" ? { textLength: 19, lengthAdjust: "spacingAndGlyphs" } : {};
}

// A card's face, drawn: its rank and suit in the top-left corner and, upside down, the bottom-right one,
// and a large pip in the middle. The corner stays readable where cards overlap.
function cardFace(code) {
  const rank = code[0] === "T" ? "10" : code[0];
  const pip = SUITS[code[1]][0];
  const corner = (index) => drawn("g", { class: "corner" }, index, drawn("text", { x: 4, y: 35, class: "index-pip" }, pip));
  return drawn("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true" },
    corner(drawn("text", { x: 3, y: 18, class: "index", ...narrowed(rank) }, rank)),
    drawn("text", { x: 30, y: 57, class: "pip", "text-anchor": "middle" }, pip),
    // The upside-down rank is drawn by reference, not as text of the card's own: what a card to play
    // shows in words is then its rank once, as its name begins (label in name, WCAG 2.5.3).
    drawn("g", { transform: "rotate(180 30 42)" }, corner(drawn("use", { href: `#rank-${rank}` }))));
}

// The ranks' glyphs the upside-down corners refer to: drawn once, with the corner's own style.
function rankGlyphs() {
  const glyphs = [...RANK_ORDER].map((code) => {
    const rank = code === "T" ? "10" : code;
    return drawn("text", { id: `rank-${rank}`, x: 3, y: 18, fill: "currentColor", "font-family": "system-ui, sans-serif",
      "font-weight": "bold", "font-size": 19, "letter-spacing": -1.5, ...narrowed(rank) }, rank);
  });
  return drawn("svg", { width: 0, height: 0, "aria-hidden": "true", class: "glyph-defs" }, drawn("defs", {}, ...glyphs));
}

// A card to play is a button; any other face-up card is an image, which explains itself when clicked.
function cardElement(code, action, play) {
  const red = code[1] === "D" || code[1] === "H";
  const element = document.createElement(action ? "button" : "span");
  element.className = `card suit-${code[1]}${red ? " red" : ""}`;
  element.append(cardFace(code));
  element.dataset.card = code;
  if (action) {
    element.type = "button";
    element.classList.add("playable");
    // Named first by what it shows (WCAG 2.5.3, label in name), so that saying "K spades" presses it.
    element.setAttribute("aria-label", `${cardIndex(code)}, ${cardName(code)}: play to ${placeName(action.to)}`);
    element.addEventListener("click", () => play.onPlay(code));
  } else {
    element.setAttribute("role", "img");
    element.setAttribute("aria-label", cardName(code));
    if (play) element.addEventListener("click", () => play.onRefused(code));
  }
  return element;
}

function cardBack() {
  const diamonds = [];
  for (let y = 0; y < 7; y += 1) {
    for (let x = 0; x < 5; x += 1) {
      const cx = 10 + x * 10 + (y % 2) * 5;
      const cy = 12 + y * 10;
      if (cx < 52) diamonds.push(drawn("path", { d: `M${cx} ${cy - 5}l4 5l-4 5l-4-5z`, class: "lattice" }));
    }
  }
  return drawn("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true" },
    drawn("rect", { x: 4, y: 4, width: 52, height: 76, rx: 4, class: "frame" }), ...diamonds);
}

// Face-down cards: one back with their count on it, alike for one card or three.
function backs(count) {
  const element = document.createElement("span");
  element.className = "card back";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", counted(count, "face-down card"));
  const badge = document.createElement("span");
  badge.className = "count";
  badge.textContent = `×${count}`;
  element.append(cardBack(), badge);
  return element;
}

// A place on the table, a group named as the pile it is ("reserve 1", "foundation 2", "waste"); `label`, the words
// shown beside it where they help a player (the stock, the waste and its count, the cell), or null; `target`, where a
// card may be dropped (F1..F4, cell); `empty`, what an empty place shows.
function row(label, children, className, { target = null, pileName = label, empty = emptyPlace() } = {}) {
  const element = document.createElement("div");
  element.className = `row ${className}`;
  element.setAttribute("role", "group");
  element.setAttribute("aria-label", pileName);
  if (target) element.dataset.target = target;
  if (label) {
    const name = document.createElement("span");
    name.className = "label";
    name.textContent = label;
    element.append(name);
  }
  element.append(...(children.length ? children : [empty]));
  return element;
}

function emptyPlace(text = "empty") {
  const empty = document.createElement("span");
  empty.className = "empty";
  empty.textContent = text;
  return empty;
}

// An empty foundation shows the rank that starts it, where one rank does (the base rank), as a solitaire table shows
// an ace on an empty foundation.
function emptyFoundation(startRank) {
  if (!startRank) return emptyPlace();
  const empty = emptyPlace(rankIndex(startRank));
  empty.classList.add("starts");
  empty.title = `${sentence(aRank(startRank))} starts it`;
  return empty;
}

const RANK_ORDER = "A23456789TJQK";

function byRank(cards) {
  return [...cards].sort((a, b) => RANK_ORDER.indexOf(a[0]) - RANK_ORDER.indexOf(b[0]));
}

// The rank every empty foundation starts with, under rules that start them with the base rank; else null.
export function startRankOf(rules, state) {
  return rules.start_rule === "base_rank" ? state.base_rank : null;
}

// Moves by card: a card may have a foundation move and a cell move.
export function movesByCard(actions) {
  const moves = new Map();
  for (const action of actions) {
    if (action.kind !== "move") continue;
    if (!moves.has(action.card)) moves.set(action.card, []);
    moves.get(action.card).push(action);
  }
  return moves;
}

// `play`, for a board the player acts on: {chosen(moves) -> the move a click makes, onPlay(code),
// onRefused(code), onDraw(), drawAction}; `freeCells`: whether the rules have a cell (shown even while empty);
// `foundationOrder`: "played" (as the cards were played) or "rank" (ace to king); `groupWaste`: only the
// latest deal's cards of the waste may be played (strict waste), so the rest are shown dimmed; `startRank`: the rank
// every empty foundation starts with, when the rules start them with one (the base rank).
export function renderBoard(container, state, actions,
  { play = null, freeCells = false, foundationOrder = "played", groupWaste = false, startRank = null } = {}) {
  if (!document.getElementById("rank-A")) document.body.append(rankGlyphs());
  const moves = play ? movesByCard(actions) : new Map();
  const card = (code) => cardElement(code, play ? play.chosen(moves.get(code)) : null, play);
  const left = document.createElement("div");
  left.className = "reserves";
  state.reserves.forEach((pile, p) => {
    const down = pile.face_down ? [backs(pile.face_down)] : [];
    left.append(row(null, [...down, ...pile.face_up.map(card)], "reserve", { pileName: `reserve ${p + 1}` }));
  });
  const right = document.createElement("div");
  right.className = "foundations";
  state.foundations.forEach((foundation, k) => {
    const cards = foundationOrder === "rank" ? byRank(foundation.cards) : foundation.cards;
    const name = `foundation ${k + 1}${foundation.suit ? `, ${SUITS[foundation.suit][1]}` : ", empty"}`;
    right.append(row(null, cards.map((code) => cardElement(code, null, null)), "foundation",
      { target: `F${k + 1}`, pileName: name, empty: emptyFoundation(startRank) }));
  });
  const talon = document.createElement("div");
  talon.className = "talon";
  talon.append(row("Stock", [stockElement(state, play)], "stock-row", { pileName: "stock" }));
  const shown = state.waste.slice(-6);
  const waste = shown.map(card);
  if (groupWaste) waste.slice(0, waste.length - state.live_waste).forEach((element) => element.classList.add("dead"));
  talon.append(row(`Waste ${state.waste.length}`, waste, "waste", { pileName: `waste, ${counted(state.waste.length, "card")}` }));
  if (state.cell !== null || freeCells) {
    talon.append(row("Cell", state.cell ? [card(state.cell)] : [], "cell", { target: "cell", pileName: "cell" }));
  }
  const passes = state.passes_left === null ? "unlimited passes" : `${counted(state.passes_left, "more pass", "more passes")}`;
  const info = document.createElement("p");
  info.className = "info";
  const live = groupWaste ? ` Live waste: ${counted(state.live_waste, "card")} of the latest deal.` : "";
  info.textContent = `Pass ${state.pass_number}, ${passes}. Base rank ${rankIndex(state.base_rank)}.${live}`;
  container.classList.toggle("no-reserves", state.reserves.length === 0);
  container.replaceChildren(talon, left, right, info);
}

// The stock: a back with its count, which draws when clicked; an outlined place once it is empty.
function stockElement(state, play) {
  const draw = play?.drawAction;
  if (state.stock_count === 0 && !draw) {
    const empty = document.createElement("span");
    empty.className = "empty stock";
    empty.textContent = "empty";
    return empty;
  }
  const element = document.createElement(draw ? "button" : "span");
  element.className = "card back stock";
  const count = document.createElement("span");
  count.className = "count";
  count.textContent = state.stock_count;
  if (state.stock_count) element.append(cardBack());
  else element.classList.add("spent"); // empty, but a redeal is drawn from here
  element.append(count);
  if (draw) {
    element.type = "button";
    element.setAttribute("aria-label", `stock: ${state.stock_count} cards; ${draw.kind === "redeal" ? "redeal the waste" : "draw"}`);
    element.addEventListener("click", play.onDraw);
  } else {
    element.setAttribute("role", "img");
    element.setAttribute("aria-label", `stock: ${state.stock_count} cards`);
  }
  return element;
}

// A place in words: "the waste", "the cell", "reserve 1", "foundation 2".
function placeName(place) {
  if (place === "waste" || place === "cell") return `the ${place}`;
  return `${place[0] === "F" ? "foundation" : "reserve"} ${place.slice(1)}`;
}

function sentence(text) {
  return `${text[0].toUpperCase()}${text.slice(1)}`;
}

// An event in a sentence, as the table announces it and the replay shows it.
export function describe(event) {
  return sentence(eventText(event));
}

function eventText(event) {
  const d = event.data;
  switch (event.kind) {
    case "game_created": return `Dealt ${presetTitle(d.variant)}; base card ${cardName(d.opening.foundations[0].cards[0])}.`;
    case "card_played": return `${cardName(d.card)} from ${placeName(d.from)} to ${placeName(d.to)}${d.uncovered ? `, uncovering ${cardName(d.uncovered)}` : ""}.`;
    case "card_moved_to_cell": return `${cardName(d.card)} from ${placeName(d.from)} to the cell.`;
    case "cards_dealt": return `Drew ${d.cards.map(cardName).join(", ")}.`;
    case "waste_redealt": return `Redealt the waste: pass ${d.pass_number}.`;
    case "game_won": return "Won!";
    case "game_lost": return `Lost: ${d.reason}.`;
    case "game_resigned": return "Resigned.";
    case "game_timed_out": return `Out of time, with ${d.score} of 52 home.`;
    case "seeds_revealed": return `Seeds revealed: server ${d.server_seed.slice(0, 16)}…, client "${d.client_seed}".`;
    case "hint_given": return `Hint asked: ${hintText(d)}.`;
    case "action_undone": return `Took back: ${undoneText(d.action)}.`;
    default: return event.kind;
  }
}

function undoneText(action) {
  return action.kind === "move" ? `${cardName(action.card)} from ${placeName(action.to)} back to ${placeName(action.from)}`
    : action.kind === "deal" ? "the draw, its cards back to the stock" : "the redeal, the waste back in its place";
}

function actionText(action) {
  return action.kind === "move" ? `${cardName(action.card)} from ${placeName(action.from)} to ${placeName(action.to)}` : action.kind;
}

export function hintText(hint) {
  if (hint.basis === "exact") {
    return hint.action ? `${actionText(hint.action)} (it wins)` : `no action wins (${hint.verdict})`;
  }
  const best = hint.estimates[0];
  return `${actionText(hint.action)} (won ${best.wins} of ${best.samples} guesses at the unseen cards)`;
}
