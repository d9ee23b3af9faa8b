// The start page's lists: the games this browser created (their player tokens are kept in localStorage),
// and anybody's games being played now, to watch.

import { api } from "./api.js";
import { counted, presetTitle } from "./board.js";

const $ = (id) => document.getElementById(id);
const MY_GAMES = "osmosis-games"; // ids of the games this browser created, newest first
const MY_GAMES_SHOWN = 20;
const IN_PROGRESS_SHOWN = 10;
const IN_PROGRESS_WITHIN_S = 600; // acted on in the last ten minutes: a table only dealt, or left, is not being played

export function tokenOf(id) {
  return localStorage.getItem(`osmosis-token-${id}`);
}

export function myGameIds() {
  const kept = JSON.parse(localStorage.getItem(MY_GAMES) || "[]");
  return kept.filter((id) => tokenOf(id) !== null);
}

export function remember(created) {
  localStorage.setItem(`osmosis-token-${created.id}`, created.player_token);
  localStorage.setItem(MY_GAMES, JSON.stringify([created.id, ...myGameIds().filter((id) => id !== created.id)]));
}

export async function listMyGames() {
  const ids = myGameIds().slice(0, MY_GAMES_SHOWN);
  $("my-games").hidden = ids.length === 0;
  const items = await Promise.all(ids.map(async (id) => {
    const item = document.createElement("li");
    try {
      const mine = await api(`/games/${id}`);
      const deal = mine.deal.kind === "number" ? `deal ${mine.deal.deal_number}` : `a ${mine.deal.kind} deal`;
      const text = document.createElement("span");
      text.textContent = `${presetTitle(mine.variant)}, ${deal}: ${mine.status}, ${mine.score} of 52 home`;
      const open = document.createElement("a");
      open.href = mine.status === "playing" ? `#game=${id}` : `#replay=${id}`;
      open.textContent = mine.status === "playing" ? "Resume" : "Replay";
      item.append(text, " ", open);
    } catch (error) {
      item.textContent = `${id}: ${error.message}`;
    }
    return item;
  }));
  $("my-games-list").replaceChildren(...items);
}

export function dealName(deal) {
  if (deal.kind === "number") return `deal ${deal.deal_number}${deal.winnable ? " (winnable)" : ""}`;
  if (deal.kind === "daily") return `the daily deal of ${deal.day}`;
  if (deal.kind === "sealed") return "a sealed deal (provably fair)";
  if (deal.kind === "competition") return "a competition's deal";
  return deal.winnable ? "a winnable random deal" : "a random deal";
}

// A preset as a player reads its name: "Osmosis draw one" for osmosis-draw-one; custom rules have none.
// A game's title is its deal, as a player names it: "Osmosis, deal 3", "Peek, the daily deal of 2026-11-27".
export function tableTitle(game) {
  return `${presetTitle(game.variant)}, ${dealName(game.deal)}`;
}

// Anybody's games being played now, to watch live.
export async function listGamesInProgress() {
  let games;
  try {
    ({ games } = await api(`/games?status=playing&acted_within=${IN_PROGRESS_WITHIN_S}&limit=${IN_PROGRESS_SHOWN}`));
  } catch (error) {
    $("in-progress-list").replaceChildren(Object.assign(document.createElement("li"), { textContent: error.message }));
    return;
  }
  $("in-progress-none").hidden = games.length > 0;
  $("in-progress-list").replaceChildren(...games.map((other) => {
    const item = document.createElement("li");
    const watch = document.createElement("a");
    watch.href = `#watch=${other.id}`;
    watch.textContent = "Watch";
    item.append(`${presetTitle(other.variant)}, ${dealName(other.deal)}: ${other.score} of 52 home, ` +
      `${counted(other.version, "event")} `, watch);
    return item;
  }));
}
