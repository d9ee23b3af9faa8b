// Why a card the player clicked or dropped cannot go where it was meant to. Each reason is found once, as a kind
// and its particulars, in the engine's order (server/rules/engine.py: source_of, _why_unavailable, _refusal), and
// is said two ways: in the server's words, which a browser test holds to the server's refusals over many positions
// of every preset, and in the table's own words (3♠, "foundation 2", "the foundation above"), which the table shows.
// It reads only what the player sees; which moves are legal still comes from the game's legal_actions alone.

import { aRank, cardIndex as shown, rankWord, SUITS } from "./board.js";

const foundationWord = (target) => `foundation ${target.slice(1)}`;
const reserveWord = (place) => `reserve ${place.slice(1)}`;

const SERVER_WORDS = {
  over: ({ status }) => `the game is over (${status}): no further action is accepted`,
  groupWasteSpent: ({ card }) =>
    `${card} cannot move: under the group waste rule only the cards of the latest deal can be played, and none of them is left`,
  alreadyHome: ({ card, target }) => `${card} is already on ${target}`,
  underInWaste: ({ card, top }) => `${card} is not the top of the waste (the top is ${top})`,
  underInReserve: ({ card, pile, top }) => `${card} is not the top of ${pile} (the top is ${top})`,
  notInPlay: ({ card }) => `${card} is not in play: only a reserve's top card, the waste's top card or the cell's card can move`,
  otherSuit: ({ card, target, suit }) => `${card} cannot go to ${target}: ${target} takes ${SUITS[suit][1]}`,
  rankNotAbove: ({ card, target, above }) => `${card} cannot go to ${target}: no ${card[0]} in ${above}`,
  aboveNotStarted: ({ card, target, above }) => `${card} cannot start ${target}: ${above} is not started yet`,
  suitElsewhere: ({ card, target, other }) => `${card} cannot start ${target}: ${SUITS[card[1]][1]} already go to ${other}`,
  notBaseRank: ({ card, target, base }) =>
    `${card} cannot start ${target}: an empty foundation starts with the base rank, ${base}`,
  startRankNotAbove: ({ card, target, above }) => `${card} cannot start ${target}: no ${card[0]} in ${above}`,
  noCell: ({ card }) => `${card} cannot go to the cell: these rules have no free cell`,
  alreadyInCell: ({ card }) => `${card} is already in the cell`,
  cellTaken: ({ card, held }) => `${card} cannot go to the cell: it already holds ${held}`,
};

const TABLE_WORDS = {
  over: () => "The game is over: no more moves",
  groupWasteSpent: ({ card }) => `${shown(card)} cannot move: only the latest deal's cards can be played, and none is left`,
  alreadyHome: ({ card, target }) => `${shown(card)} is already home on ${foundationWord(target)}`,
  underInWaste: ({ card, top }) => `${shown(card)} is under ${shown(top)}: only the waste's top card plays`,
  underInReserve: ({ card, pile, top }) => `${shown(card)} is under ${shown(top)}: only the top of ${reserveWord(pile)} plays`,
  notInPlay: ({ card }) => `${shown(card)} is not in play yet`,
  otherSuit: ({ card, target, suit }) => `${shown(card)} cannot go there: ${foundationWord(target)} takes ${SUITS[suit][0]} ${SUITS[suit][1]}`,
  rankNotAbove: ({ card }) => `${shown(card)} cannot go there: the foundation above has no ${rankWord(card[0])} yet`,
  aboveNotStarted: ({ card, target }) => `${shown(card)} cannot start ${foundationWord(target)}: the foundation above is empty`,
  suitElsewhere: ({ card, other }) => `${shown(card)} cannot start a foundation: ${SUITS[card[1]][0]} ${SUITS[card[1]][1]} go to ${foundationWord(other)}`,
  notBaseRank: ({ card, base }) => `${shown(card)} cannot start a foundation: only ${aRank(base)} starts one`,
  startRankNotAbove: ({ card }) => `${shown(card)} cannot start a foundation: the foundation above has no ${rankWord(card[0])} yet`,
  noCell: () => "These rules have no cell",
  alreadyInCell: ({ card }) => `${shown(card)} is already in the cell`,
  cellTaken: ({ held }) => `The cell is taken: it holds ${shown(held)}`,
};

// Whether the waste's top may be played: always, unless the rules let only the latest deal's cards go.
function wasteTopIsPlayable(game) {
  return game.state.waste.length > 0 && (game.rules.waste_access === "top" || game.state.live_waste > 0);
}

// Why `card` may not leave its place at all, or null when it may.
function unavailable(game, card) {
  const state = game.state;
  if (state.reserves.some((pile) => pile.face_up.at(-1) === card) || state.cell === card) return null;
  if (state.waste.at(-1) === card) return wasteTopIsPlayable(game) ? null : ["groupWasteSpent", { card }];
  const k = state.foundations.findIndex((foundation) => foundation.cards.includes(card));
  if (k >= 0) return ["alreadyHome", { card, target: `F${k + 1}` }];
  if (state.waste.includes(card)) return ["underInWaste", { card, top: state.waste.at(-1) }];
  const p = state.reserves.findIndex((pile) => pile.face_up.includes(card));
  if (p >= 0) return ["underInReserve", { card, pile: `R${p + 1}`, top: state.reserves[p].face_up.at(-1) }];
  return ["notInPlay", { card }];
}

// The foundation a card would go to if the rules allowed it: its suit's, or the first empty one.
export function naturalFoundation(game, card) {
  return game.state.foundations.findIndex((foundation) => foundation.cards.length === 0 || foundation.suit === card[1]);
}

// Why foundation k (0-based) does not take `card` now.
function refusal(game, card, k) {
  const foundations = game.state.foundations;
  const target = `F${k + 1}`;
  const above = `F${k}`;
  const foundation = foundations[k];
  if (foundation.cards.length) {
    if (foundation.suit !== card[1]) return ["otherSuit", { card, target, suit: foundation.suit }];
    return ["rankNotAbove", { card, target, above }];
  }
  if (!foundations[k - 1].cards.length) return ["aboveNotStarted", { card, target, above }];
  const j = foundations.findIndex((other) => other.suit === card[1]);
  if (j >= 0) return ["suitElsewhere", { card, target, other: `F${j + 1}` }];
  if (game.rules.start_rule === "base_rank") return ["notBaseRank", { card, target, base: game.state.base_rank }];
  return ["startRankNotAbove", { card, target, above }];
}

// Why the cell does not take `card` whatever its place, or null.
function cellRefusal(game, card) {
  if (!game.rules.free_cells) return ["noCell", { card }];
  if (game.state.cell === card) return ["alreadyInCell", { card }];
  if (game.state.cell !== null) return ["cellTaken", { card, held: game.state.cell }];
  return null;
}

// Why `card` cannot go to `target` (F1..F4, "cell"; null: whichever foundation), as [kind, particulars], or null
// if it may; the checks come in the engine's order, so that the first reason found is the one the server gives.
function reason(game, card, target) {
  if (game.status !== "playing") return ["over", { status: game.status }];
  const legal = game.legal_actions.some((a) => a.kind === "move" && a.card === card
    && (target === null ? a.to !== "cell" : a.to === target));
  if (legal) return null;
  return (target === "cell" ? cellRefusal(game, card) : null) ?? unavailable(game, card)
    ?? refusal(game, card, target === null ? naturalFoundation(game, card) : Number(target.slice(1)) - 1);
}

function said(words, found) {
  return found && words[found[0]](found[1]);
}

// The server's words for the refusal, or null.
export function whyNot(game, card, target = null) {
  return said(SERVER_WORDS, reason(game, card, target));
}

// The table's words for the refusal, or null.
export function whyNotHere(game, card, target = null) {
  return said(TABLE_WORDS, reason(game, card, target));
}
