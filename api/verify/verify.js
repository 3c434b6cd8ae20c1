// The hand-history verifier (API.md, "A verifier in the browser"; docs/decisions.md 138).
// Everything is checked here, in the browser, with WebCrypto (SHA-256, HMAC and Ed25519;
// the vendored noble-ed25519 where WebCrypto has no Ed25519). The page makes no request
// but the one the user asks for, and works saved to disk.
"use strict";

const GENESIS = new Uint8Array(32);
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["S", "H", "D", "C"];
const FORMAT = "pontoon-hand-history-v1";
const TWO_64 = 1n << 64n;
const text = new TextEncoder();

// --- bytes ------------------------------------------------------------------------------

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(value) {
  if (typeof value !== "string" || value.length % 2 || !/^[0-9a-fA-F]*$/.test(value)) {
    throw new Error(`not hex: ${String(value).slice(0, 20)}`);
  }
  return Uint8Array.from(value.match(/../g) || [], (pair) => parseInt(pair, 16));
}

function fromBase64(value) {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4) {
    throw new Error(`not base64: ${String(value).slice(0, 20)}`);
  }
  return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) { out.set(part, at); at += part.length; }
  return out;
}

function same(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function bigEndian(value, width = 8) {
  const out = new Uint8Array(width);
  let rest = BigInt(value);
  for (let i = width - 1; i >= 0; i--) { out[i] = Number(rest & 0xffn); rest >>= 8n; }
  return out;
}

function uuidBytes(id) {
  const digits = String(id).replace(/-/g, "");
  if (digits.length !== 32) throw new Error(`not an id: ${id}`);
  return fromHex(digits);
}

// --- WebCrypto ----------------------------------------------------------------------------

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

async function hmacSha256(key, message) {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" },
                                                 false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, message));
}

// Ed25519 by WebCrypto where the browser has it, else by the vendored noble-ed25519.
async function ed25519Verify(publicKey, message, signature, engine = "auto") {
  if (engine !== "noble") {
    try {
      const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false,
                                                ["verify"]);
      return await crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
    } catch (error) {
      if (engine === "webcrypto") throw error;
    }
  }
  const noble = globalThis.nobleEd25519;
  if (!noble) throw new Error("this browser has no Ed25519 and the vendored library is missing");
  return noble.verifyAsync(signature, message, publicKey, { zip215: false });
}

// --- the event hash chain (domain/integrity.py) ---------------------------------------

async function eventHash(previous, aggregateId, version, topic, state) {
  return sha256(concat(previous, uuidBytes(aggregateId), bigEndian(version),
                       text.encode(topic), Uint8Array.of(0), state));
}

// --- RFC 6962 ---------------------------------------------------------------------------

const leafHash = (data) => sha256(concat(Uint8Array.of(0), data));
const nodeHash = (left, right) => sha256(concat(Uint8Array.of(1), left, right));
const eventLeaf = (position, hashed) => leafHash(concat(bigEndian(position), hashed));

// RFC 9162 2.1.3.2: the root an inclusion proof leads to, or null for a malformed proof.
async function rootFromInclusion(index, size, leaf, proof) {
  let fn = BigInt(index), sn = BigInt(size) - 1n, r = leaf;
  if (fn > sn) return null;
  for (const p of proof) {
    if (p.length !== 32 || sn === 0n) return null;
    if ((fn & 1n) === 1n || fn === sn) {
      r = await nodeHash(p, r);
      while ((fn & 1n) === 0n && fn !== 0n) { fn >>= 1n; sn >>= 1n; }
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n; sn >>= 1n;
  }
  return sn === 0n ? r : null;
}

// --- C2SP signed notes and checkpoints ------------------------------------------------

async function keyId(name, publicKey) {
  return (await sha256(concat(text.encode(name), Uint8Array.of(0x0a, 0x01), publicKey)))
    .slice(0, 4);
}

// `<name>+<hex key id>+<base64(0x01 ‖ 32-byte key)>`; the key id must match the key.
async function parseVkey(vkey) {
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(String(vkey).trim());
  if (!match) throw new Error("a verifier key reads name+8 hex digits+base64 key");
  const key = fromBase64(match[3]);
  if (key.length !== 33 || key[0] !== 1) throw new Error("the verifier key is not an Ed25519 key");
  const publicKey = key.slice(1);
  if (hex(await keyId(match[1], publicKey)) !== match[2]) {
    throw new Error("the verifier key's id does not match its name and key");
  }
  return { name: match[1], keyId: fromHex(match[2]), publicKey };
}

// A signed note: the signed text (up to and including the newline before the blank line)
// and its signature lines `— <name> <base64(key id ‖ signature)>`.
function parseNote(note) {
  const split = note.indexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) throw new Error("the checkpoint is not a signed note");
  const signatures = note.slice(split + 2, -1).split("\n").map((line) => {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
    if (!match) throw new Error(`not a signature line: ${line.slice(0, 40)}`);
    const blob = fromBase64(match[2]);
    if (blob.length < 5) throw new Error("a signature line is too short");
    return { name: match[1], keyId: blob.slice(0, 4), signature: blob.slice(4) };
  });
  return { signed: note.slice(0, split + 1), signatures };
}

// A C2SP tlog-checkpoint's body: origin, tree size, base64 root hash (then extensions).
function parseCheckpoint(signed) {
  const lines = signed.slice(0, -1).split("\n");
  const root = lines.length >= 3 && /^\d+$/.test(lines[1]) ? fromBase64(lines[2]) : null;
  if (!root || root.length !== 32) throw new Error("the note is not a log checkpoint");
  return { origin: lines[0], size: BigInt(lines[1]), root };
}

async function verifyNote(note, vkey, engine = "auto") {
  const key = await parseVkey(vkey);
  const parsed = parseNote(note);
  const mine = parsed.signatures.filter((s) => s.name === key.name && same(s.keyId, key.keyId));
  if (!mine.length) return { ok: false, parsed, why: `the note carries no signature by ${key.name}` };
  for (const s of mine) {
    if (s.signature.length === 64 &&
        await ed25519Verify(key.publicKey, text.encode(parsed.signed), s.signature, engine)) {
      return { ok: true, parsed, why: "" };
    }
  }
  return { ok: false, parsed, why: `the signature does not verify with ${key.name}'s key` };
}

// --- the shuffle (domain/engine/shuffle.py) -------------------------------------------

function fullPack(packs) {
  const one = SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
  return Array.from({ length: packs }, () => one).flat();
}

async function mixedSeed(seed, contributions) {
  if (!contributions.length) return seed;
  const parts = [text.encode("pontoon-mix-v1")];
  for (const c of contributions) {
    if (typeof c.player_id !== "string" || c.player_id.length !== 36) {
      throw new Error("a contribution's player id is not 36 characters");
    }
    const value = fromHex(c.value);
    if (value.length !== 32) throw new Error("a contribution is not 32 bytes");
    parts.push(text.encode(c.player_id), value);
  }
  return hex(await hmacSha256(fromHex(seed), concat(...parts)));
}

// 64-bit numbers from HMAC-SHA256(seed, label ‖ counter), 4 to a block: BigInts.
function stream(seed, label) {
  const key = fromHex(seed);
  let counter = 0n, buffered = [];
  return async () => {
    if (!buffered.length) {
      const block = await hmacSha256(key, concat(text.encode(label), bigEndian(counter)));
      counter += 1n;
      for (let at = 0; at < 32; at += 8) {
        buffered.push(BigInt("0x" + hex(block.slice(at, at + 8))));
      }
    }
    return buffered.shift();
  };
}

async function below(next, bound) {
  const limit = TWO_64 - TWO_64 % BigInt(bound);
  for (;;) {
    const value = await next();
    if (value < limit) return Number(value % BigInt(bound));
  }
}

async function shufflePack(seed, packs) {
  const cards = fullPack(packs);
  const next = stream(seed, "pontoon-shuffle-v1");
  for (let i = cards.length - 1; i > 0; i--) {
    const j = await below(next, i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

// --- checking a hand history ----------------------------------------------------------

const PASS = "pass", FAIL = "fail", SKIP = "not checked";

function decoded(event) {
  if (event.state == null) return null;
  const state = JSON.parse(new TextDecoder("utf-8", { fatal: true })
    .decode(fromBase64(event.state)));
  return { kind: event.topic.split(".").pop(), fact: state.fact || {} };
}

async function checkEvents(history) {
  let previous = GENESIS, withheld = 0;
  const hashes = [], problems = [];
  history.events.forEach((e, i) => {
    if (e.version !== i + 1) problems.push(`the events skip from version ${i} to ${e.version}`);
    if (e.aggregate_id !== history.deal.id) problems.push(`event ${e.version} is not this deal's`);
  });
  for (const e of history.events) {
    const given = e.event_hash ? fromHex(e.event_hash) : null;
    let hashed;
    if (e.state == null) {
      withheld += 1;
      hashed = given || new Uint8Array(32);
      if (!given) problems.push(`event ${e.version} has neither its bytes nor its hash`);
    } else {
      hashed = await eventHash(previous, e.aggregate_id, e.version, e.topic,
                               fromBase64(e.state));
      if (given && !same(given, hashed)) {
        problems.push(`event ${e.version} (${e.topic.split(".").pop()}, position ` +
                      `${e.position}): its bytes do not hash to its recorded hash: they were ` +
                      "changed");
      }
    }
    hashes.push(hashed);
    previous = hashed;
  }
  const shown = history.events.length - withheld;
  const aside = withheld ? `; ${withheld} withheld until the seed is revealed, their hashes ` +
    "taken as given" : "";
  return { hashes, result: problems.length ? [FAIL, problems.join("; ")] :
    [PASS, `${shown} events hash from their bytes and chain from version 1${aside}`] };
}

async function checkInclusion(history, hashes, note) {
  if (!note) return [SKIP, "the history carries no signed checkpoint"];
  const proofs = new Map((history.inclusion || []).map((p) => [p.index, p.proof]));
  const problems = [];
  for (const [i, e] of history.events.entries()) {
    const proof = proofs.get(e.index);
    if (proof === undefined) { problems.push(`event ${e.version} has no inclusion proof`); continue; }
    const root = await rootFromInclusion(e.index, note.size, await eventLeaf(e.position, hashes[i]),
                                         proof.map(fromBase64));
    if (!root || !same(root, note.root)) {
      problems.push(`event ${e.version} (position ${e.position}) is not in the checkpoint's log`);
    }
  }
  return problems.length ? [FAIL, problems.join("; ")] :
    [PASS, `every event is in the log of ${note.size} events the checkpoint signs`];
}

async function checkSignature(history, vkey, engine) {
  if (!history.checkpoint) return { result: [SKIP, "the history carries no signed checkpoint"] };
  if (!vkey) return { result: [SKIP, "no verifier key was given"] };
  try {
    const verdict = await verifyNote(history.checkpoint, vkey, engine);
    if (!verdict.ok) return { result: [FAIL, verdict.why] };
    const note = parseCheckpoint(verdict.parsed.signed);
    return { note, result: [PASS, `the checkpoint of ${note.origin}, a log of ${note.size} ` +
                                  "events, is signed with the key you gave"] };
  } catch (error) {
    return { result: [FAIL, error.message] };
  }
}

function sameList(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function checkPack(history, started) {
  const pack = history.pack, out = {};
  const opened = started ? started.fact : null;
  if (opened && opened.commitment !== pack.commitment) {
    out.commitment = [FAIL, "the commitment differs from the one the deal's first event records"];
  } else if (!pack.commitment) {
    out.commitment = [SKIP, `this pack was not shuffled by the service (${pack.algorithm})`];
  } else if (!pack.server_seed) {
    out.commitment = [SKIP, "the seed is revealed at the pack's next shuffle: check again then"];
  } else {
    out.commitment = hex(await sha256(fromHex(pack.server_seed))) === pack.commitment ?
      [PASS, "SHA-256 of the revealed seed is the commitment published before the first card"] :
      [FAIL, "SHA-256 of the revealed seed is not the commitment"];
  }
  const count = `${pack.contributions.length} contribution(s)`;
  if (opened && !sameList(opened.contributions || [], pack.contributions)) {
    out.mixed = [FAIL, "the contributions listed are not those the deal's first event records"];
  } else if (out.commitment[0] !== PASS) {
    out.mixed = [SKIP, `${count}; without the revealed seed the mix cannot be made`];
  } else {
    out.seed = await mixedSeed(pack.server_seed, pack.contributions);
    out.mixed = [PASS, `${count} mixed: the pack was shuffled with ${out.seed}`];
  }
  return out;
}

// The draws against the deal's own events (one CardDealt each), then against the shuffle:
// a draw's place in the pack's order is the shuffle's up to the pack's size, after which
// it is a card that went round the pack (R1.4), found in the pack the deal started from.
async function checkDraws(history, facts, seed) {
  const problems = [];
  const dealt = history.events.map((e, i) => [e, facts[i]])
    .filter(([e]) => e.topic.endsWith(".CardDealt"));
  if (dealt.length !== history.draws.length) {
    problems.push(`the deal's events deal ${dealt.length} cards, the history lists ` +
                  `${history.draws.length}`);
  }
  const byPosition = new Map(dealt.map(([e, f]) => [e.position, f]));
  for (const d of history.draws) {
    if (!byPosition.has(d.position)) {
      problems.push(`no event of the deal deals the draw at position ${d.position}`);
    }
    const f = byPosition.get(d.position);
    if (f && (f.fact.card !== d.card || f.fact.player !== d.to)) {
      problems.push(`the draw at position ${d.position} is ${d.card} but its event deals ` +
                    `${f.fact.card}`);
    }
  }
  if (!seed || problems.length) {
    return problems.length ? [FAIL, problems.slice(0, 5).join("; ")] :
      [SKIP, history.pack.commitment ? "the draws cannot be checked against the shuffle " +
        "until the seed is revealed" : "the pack was not shuffled by the service"];
  }
  const order = await shufflePack(seed, history.pack.packs);
  const started = facts[0] && facts[0].kind === "DealStarted" ? facts[0].fact.pack : null;
  const first = history.draws.length ? history.draws[0].pack_index : 0;
  if (started) {
    order.slice(first).forEach((card, j) => {
      if (started[j] !== card) {
        problems.push(`the pack the deal started from is not the shuffle's at place ${first + j}`);
      }
    });
  }
  let fromShuffle = 0, round = 0, unchecked = 0;
  history.draws.forEach((d, j) => {
    if (d.pack_index !== first + j) problems.push(`draw ${j + 1} is not the pack's next card`);
    if (d.pack_index < order.length) {
      fromShuffle += 1;
      if (order[d.pack_index] !== d.card) {
        problems.push(`draw ${j + 1} is ${d.card} but place ${d.pack_index} of the shuffle ` +
                      `is ${order[d.pack_index]}`);
      }
    } else if (started && j < started.length) {
      round += 1;
      if (started[j] !== d.card) problems.push(`draw ${j + 1} is not the pack's card there`);
    } else {
      unchecked += 1;
    }
  });
  if (problems.length) return [FAIL, problems.slice(0, 5).join("; ")];
  const more = (round ? `; ${round} had gone round the pack (R1.4) and are the cards the ` +
    "deal started from at their places" : "") + (unchecked ? `; ${unchecked} went round ` +
    "within this deal and are not checked" : "");
  return [PASS, `${fromShuffle} card(s) dealt are the shuffle's, in its order${more}`];
}

// Every check of the history: [{check, status, detail}], in the order shown.
async function checkHistory(history, vkey, engine = "auto") {
  const results = [];
  const add = (check, [status, detail]) => results.push({ check, status, detail });
  if (!history || history.format !== FORMAT) {
    add("format", [FAIL, `this is not a ${FORMAT} document`]);
    return results;
  }
  const signature = await checkSignature(history, vkey, engine);
  add("signature", signature.result);
  const events = await checkEvents(history);
  add("events", events.result);
  add("inclusion", signature.note && signature.result[0] === PASS ?
    await checkInclusion(history, events.hashes, signature.note) :
    [SKIP, history.checkpoint ? "the checkpoint's signature did not verify" :
      "the history carries no signed checkpoint"]);
  let facts;
  try {
    facts = history.events.map(decoded);
  } catch (error) {
    add("pack", [FAIL, `an event cannot be read: ${error.message}`]);
    return results;
  }
  const started = facts[0] && facts[0].kind === "DealStarted" ? facts[0] : null;
  const pack = await checkPack(history, started);
  add("commitment", pack.commitment);
  add("mixed seed", pack.mixed);
  const seedGood = pack.commitment[0] === PASS && pack.mixed[0] === PASS;
  add("draws", await checkDraws(history, facts, seedGood ? pack.seed : null));
  return results;
}

// --- the page -------------------------------------------------------------------------

const WORDS = { pass: "✓ Passed", fail: "✗ FAILED", "not checked": "– Not checked" };
const NAMES = { format: "The document", signature: "The checkpoint's signature",
                events: "Every event's hash", inclusion: "Each event in the signed log",
                commitment: "The commitment", "mixed seed": "The mixed seed",
                draws: "Every draw against the shuffle" };

function show(results) {
  const list = document.getElementById("results");
  list.replaceChildren(...results.map((r) => {
    const item = document.createElement("li");
    item.className = r.status === PASS ? "pass" : r.status === FAIL ? "fail" : "skip";
    item.dataset.check = r.check;
    const head = document.createElement("strong");
    head.textContent = `${WORDS[r.status]}: ${NAMES[r.check] || r.check}`;
    item.append(head, document.createTextNode(` — ${r.detail}`));
    return item;
  }));
  const failed = results.filter((r) => r.status === FAIL).length;
  const skipped = results.filter((r) => r.status === SKIP).length;
  const verdict = document.getElementById("verdict");
  verdict.className = failed ? "verdict bad" : skipped ? "verdict partial" : "verdict good";
  verdict.textContent = failed ? `${failed} check(s) FAILED: do not trust this history.` :
    skipped ? `Everything that could be checked passed; ${skipped} check(s) could not be made.` :
    "Every check passed.";
}

async function run() {
  const status = document.getElementById("verdict");
  status.className = "verdict";
  status.textContent = "Checking…";
  let history;
  try {
    history = JSON.parse(document.getElementById("history").value);
  } catch (error) {
    show([{ check: "format", status: FAIL, detail: `the history is not JSON: ${error.message}` }]);
    return;
  }
  try {
    show(await checkHistory(history, document.getElementById("vkey").value.trim()));
  } catch (error) {
    show([{ check: "format", status: FAIL, detail: `the history cannot be read: ${error.message}` }]);
  }
}

async function fetchHistory() {
  const url = document.getElementById("url").value.trim();
  const note = document.getElementById("fetched");
  try {
    const answer = await fetch(url, { credentials: "same-origin",
                                      headers: { Accept: "application/json" } });
    if (!answer.ok) throw new Error(`the address answered ${answer.status}`);
    document.getElementById("history").value = await answer.text();
    note.textContent = `Fetched ${url}.`;
  } catch (error) {
    note.textContent = `Could not fetch it: ${error.message}`;
  }
}

function wire() {
  if (!globalThis.crypto || !globalThis.crypto.subtle) {
    document.getElementById("secure").hidden = false;
  }
  const given = new URLSearchParams(location.hash.slice(1));
  if (given.get("history")) document.getElementById("url").value = given.get("history");
  if (given.get("vkey")) document.getElementById("vkey").value = given.get("vkey");
  document.getElementById("check").addEventListener("click", run);
  document.getElementById("get").addEventListener("click", fetchHistory);
  document.getElementById("file").addEventListener("change", async (event) => {
    const [file] = event.target.files;
    if (file) document.getElementById("history").value = await file.text();
  });
  document.body.dataset.ready = "true";
}

globalThis.PontoonVerify = {
  hex, fromHex, fromBase64, sha256, hmacSha256, ed25519Verify, eventHash, leafHash,
  nodeHash, eventLeaf, rootFromInclusion, keyId, parseVkey, parseNote, parseCheckpoint,
  verifyNote,
  mixedSeed, shufflePack, checkHistory,
};
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
else wire();
