// The player's settings, remembered by this browser.

const DEFAULTS = {
  autoMove: false, autoFinish: false, foundationOrder: "played", winnable: false, variant: null, fourColour: false,
  showFigures: true, sound: false,
};
const KEY = "osmosis-settings";

export function loadSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch {
    return { ...DEFAULTS }; // a value this page did not write: start again from the defaults
  }
}

export function saveSettings(settings) {
  localStorage.setItem(KEY, JSON.stringify(settings));
}
