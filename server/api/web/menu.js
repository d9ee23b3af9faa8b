// The menu, on every page: a new game of any preset, of a deal number or a random one, winnable deals only (the
// API's winnable-only deals: the solver proves each), or today's deal of the preset.

import { apiToken } from "./api.js";
import { presetTitle } from "./board.js";
import { loadSettings, saveSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);

let deal = null; // app.js's: (body, onError) -> whether a game was dealt, and its table shown

function explain(text) {
  $("variant-description").textContent = text;
}

async function newGame(event) {
  event.preventDefault();
  const body = { variant: $("variant").value };
  const number = $("deal-number").value.trim();
  if (number !== "") body.deal_number = Number(number);
  if ($("winnable").checked) body.winnable = true;
  saveSettings({ ...loadSettings(), winnable: $("winnable").checked, variant: body.variant });
  if (await deal(body, (error) => explain(error.message))) $("deal-menu").open = false;
}

// Today's deal of a preset, as the player whose API token this browser keeps: one attempt a day.
export async function playDaily(variant) {
  if (!apiToken()) {
    explain("Today's deal is played under a name: choose one on the Tables page.");
    return;
  }
  const onError = (error) => {
    explain(error.message);
    $("start-problem").textContent = error.message;
  };
  if (await deal({ variant, daily: true }, onError)) $("deal-menu").open = false;
}

export function wireMenu(variants, dealing) {
  deal = dealing;
  for (const variant of variants) {
    const option = new Option(presetTitle(variant.name), variant.name);
    option.title = variant.description;
    $("variant").append(option);
    $("board-variant").append(new Option(presetTitle(variant.name), variant.name));
  }
  const describeVariant = () => explain(variants.find((v) => v.name === $("variant").value).description);
  $("variant").addEventListener("change", describeVariant);
  const chosen = loadSettings();
  if (variants.some((v) => v.name === chosen.variant)) $("variant").value = chosen.variant; // the last one dealt
  describeVariant();
  $("winnable").checked = chosen.winnable;
  $("new-game").addEventListener("submit", newGame);
  $("menu-daily").addEventListener("click", () => playDaily($("variant").value));
  $("again").addEventListener("click", () => {
    $("deal-menu").open = true;
    $("variant").focus();
  });
}
