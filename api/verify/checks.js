// The hand-history verifier, part 2 of 3: every check of a hand history, each "pass",
// "fail" or "not checked" with what was found, in words a player reads.

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
