// Sound, off by default (a setting): a card placed, a draw, a refusal, the win. Short tones made here (Web Audio),
// no file to load; the context is made at the first sound, after the player's own gesture, as browsers require.

const TONES = {
  placed: [[660, 0.07]],
  drawn: [[330, 0.05], [392, 0.05]],
  refused: [[185, 0.14]],
  won: [[523, 0.12], [659, 0.12], [784, 0.12], [1047, 0.3]],
};

let context = null;

export function sound(name, on) {
  if (!on) return;
  try {
    context ??= new AudioContext();
  } catch {
    return; // no audio here (a browser without it, a page not allowed it): the table goes on in silence
  }
  let at = context.currentTime;
  for (const [frequency, seconds] of TONES[name]) {
    const tone = context.createOscillator();
    const loudness = context.createGain();
    tone.frequency.value = frequency;
    loudness.gain.setValueAtTime(0.08, at);
    loudness.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
    tone.connect(loudness).connect(context.destination);
    tone.start(at);
    tone.stop(at + seconds);
    at += seconds;
  }
}
