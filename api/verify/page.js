// The hand-history verifier, part 3 of 3: the page. It makes no request but the fetch of
// the address the user types, and works saved to disk.

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
