// The hand-history verifier (API.md, "A verifier in the browser"; docs/decisions.md 138),
// part 1 of 3: bytes, WebCrypto (SHA-256, HMAC and Ed25519; the vendored noble-ed25519
// where WebCrypto has no Ed25519), the event hash chain, RFC 6962, C2SP signed notes and
// the shuffle. checks.js checks a history with them; page.js is the page. The three are
// inlined, in that order, into one script of the page (api/verify/__init__.py).
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
