// A finger's tap on a button acts when the finger lifts. Chromium makes no click at all of a tap that comes within a
// third of a second of a finger's drag (a card just dropped), so such a tap was lost; here the tap is the button's
// press, and the click the browser may still make of the same touch is dropped, so that a tap never acts twice.

const TRAVEL = 6; // pixels a finger may move and still tap

const pressed = new Map(); // pointerId -> {button, x, y}: a finger down on a button
const tapped = new Set();  // the pointers whose tap has acted: their own click, if one comes, is not another press

export function wireTapping(root) {
  root.addEventListener("pointerdown", (event) => {
    const button = event.pointerType === "touch" ? event.target.closest("button") : null;
    if (button) pressed.set(event.pointerId, { button, x: event.clientX, y: event.clientY });
  });
  root.addEventListener("pointermove", (event) => {
    const press = pressed.get(event.pointerId);
    if (press && Math.hypot(event.clientX - press.x, event.clientY - press.y) >= TRAVEL) pressed.delete(event.pointerId);
  });
  root.addEventListener("pointercancel", (event) => pressed.delete(event.pointerId));
  root.addEventListener("pointerup", (event) => {
    const press = pressed.get(event.pointerId);
    pressed.delete(event.pointerId);
    if (!press || press.button.disabled || event.target.closest("button") !== press.button) return;
    tapped.add(event.pointerId);
    setTimeout(() => tapped.delete(event.pointerId), 1000);
    press.button.click();
  });
  root.addEventListener("click", (event) => {
    if (!tapped.has(event.pointerId)) return;
    tapped.delete(event.pointerId);
    event.stopPropagation();
    event.preventDefault();
  }, true);
}
