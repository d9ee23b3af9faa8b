// Where a game is in the public transparency log: its leaves' indexes and the checkpoint that holds them, each
// inclusion proof recomputed here, in the browser (RFC 9162, SHA-256 of Web Crypto), up to that checkpoint's
// root. The checkpoint's signature is for `osmosis verify --log-key`, which checks it against a key you pinned.

import { api } from "./api.js";

const KINDS = { deal_sealed: "sealed", game_created: "created", game_ended: "ended" };
const PENDING_RETRIES = 10; // the sequencer logs an entry within a second or two
const RETRY_MS = 1500;

const bytes = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const same = (a, b) => a.length === b.length && a.every((value, i) => value === b[i]);

async function sha256(...parts) {
  const joined = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

const leafHash = (entry) => sha256(Uint8Array.of(0), new TextEncoder().encode(entry));
const nodeHash = (left, right) => sha256(Uint8Array.of(1), left, right);

// RFC 9162 2.1.3.2: the root an inclusion proof leads to from leaf `index` of a tree of `size`, or null.
async function rootOf(index, size, leaf, proof) {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let root = leaf;
  for (const sibling of proof) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      root = await nodeHash(sibling, root);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      root = await nodeHash(root, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? root : null;
}

// Whether every leaf is this game's, hashes to what the log says, and is proven in the checkpoint's root.
async function proven(gameId, logged) {
  const root = bytes(logged.root_hash);
  for (const leaf of logged.leaves) {
    const entry = JSON.parse(leaf.entry);
    if (leaf.kind !== "deal_sealed" && entry.game_id !== gameId) return `leaf ${leaf.index} is another game's`;
    const hash = await leafHash(leaf.entry);
    if (!same(hash, bytes(leaf.leaf_hash))) return `leaf ${leaf.index} does not hash to its leaf hash`;
    const reached = await rootOf(leaf.index, logged.tree_size, hash, leaf.inclusion_proof.map(bytes));
    if (!reached || !same(reached, root)) return `the proof of leaf ${leaf.index} does not lead to the root`;
  }
  return null;
}

function sentence(logged) {
  const where = logged.leaves.map((leaf) => `${leaf.index} (${KINDS[leaf.kind] ?? leaf.kind})`);
  const at = where.length === 1 ? `index ${where[0]}` : `indexes ${where.join(", ")}`;
  return `In the public log at ${at}, checkpoint of size ${logged.tree_size}`;
}

// Fills `element` with where the game is in the log and whether its proofs hold; `current` says whether the
// replay it was asked for is still the one shown.
export async function showLogged(gameId, element, current) {
  for (let attempt = 0; ; attempt += 1) {
    let logged;
    try {
      logged = await api(`/games/${gameId}/transparency`);
    } catch (error) {
      if (current()) element.textContent = `Public log: ${error.message}`;
      return;
    }
    if (!current()) return;
    element.className = "";
    if (logged.leaves.length === 0) {
      element.textContent = "Not yet in the public log: the sequencer adds it within a second or two.";
    } else if (!globalThis.crypto?.subtle) {
      element.textContent = `${sentence(logged)} (this page is not served securely, so its browser cannot check ` +
        "the proofs: osmosis verify --log-key can).";
    } else {
      const failure = await proven(gameId, logged);
      if (!current()) return;
      element.textContent = failure
        ? `${sentence(logged)}: INVALID, ${failure}.`
        : `${sentence(logged)}: every inclusion proof checked in this browser against its root.`;
      element.className = failure ? "error" : "won";
    }
    if (logged.pending.length === 0 || attempt >= PENDING_RETRIES) return;
    element.textContent += ` Pending: ${logged.pending.map((kind) => KINDS[kind] ?? kind).join(", ")}.`;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    if (!current()) return;
  }
}
