// The table's settings, in a panel beside the toolbar's Settings button: S or the button opens and closes it, Esc or
// a click elsewhere closes it. Each change shows on the table at once, and the table's keys go on working while the
// panel is open (a switch or a list takes no letter), so a setting is tried with the cards in view.

const $ = (id) => document.getElementById(id);

const SWITCHES = {
  "auto-move": "autoMove",
  "auto-finish": "autoFinish",
  "four-colour": "fourColour",
  "show-figures": "showFigures",
  sound: "sound",
};

export function showSettings(settings) {
  for (const [id, name] of Object.entries(SWITCHES)) $(id).checked = settings[name];
  $("foundation-order").value = settings.foundationOrder;
}

// `change(changes)`: the table's, which keeps and applies them.
export function wireSettings(change) {
  for (const [id, name] of Object.entries(SWITCHES)) {
    $(id).addEventListener("change", () => change({ [name]: $(id).checked }));
  }
  $("foundation-order").addEventListener("change", () => change({ foundationOrder: $("foundation-order").value }));
  $("settings").addEventListener("toggle", (event) => {
    if (event.newState === "open") $("auto-move").focus();
  });
  // Closed with the focus inside (Esc, Done, S), the focus goes back to the button, not to the page's start.
  $("settings").addEventListener("beforetoggle", (event) => {
    if (event.newState === "closed" && $("settings").contains(document.activeElement)) $("open-settings").focus();
  });
}

export function toggleSettings() {
  if (closeSettings()) return;
  $("open-settings").scrollIntoView({ block: "nearest" }); // the panel opens beside its button
  $("settings").showPopover();
}

// Whether it was open.
export function closeSettings() {
  const open = $("settings").matches(":popover-open");
  if (open) $("settings").hidePopover();
  return open;
}
