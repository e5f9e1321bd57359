// Runs the verifier page's own scripts (read from the built page) under Node and prints its report as JSON:
//   node run_verifier_page.cjs PAGE [--pin SEAT=KEY]... [--roster FILE] FILE...
//   node run_verifier_page.cjs PAGE --batch CASES.json    (a list of {files, pins, roster}: a list of reports)
//   node run_verifier_page.cjs PAGE --vector FILE...      (the deck and deal of protocol test vectors)
//   node run_verifier_page.cjs PAGE --decode HEXES.json   (each input's canonical value re-encoded, or null)
//   node run_verifier_page.cjs PAGE --signatures S.json   ([key, message, signature] hex triples: true or false)
//   --without-wasm (with any of these): as a browser that refuses WebAssembly, libsodium unused (@noble's Ed25519)
//   --no-replay: without the page's engine (Pyodide), so records are not replayed (the page always replays)
'use strict';
const fs = require('fs');
const { loadEngine, loadPage } = require('../../fairdeal/web/bin/load_page.cjs');

const [page, ...rest] = process.argv.slice(2);
loadPage(page, (reason) => {
  throw new Error(reason);
});
const V = globalThis.FairdealVerifier;
const pins = [];
const files = [];
const vectors = [];
let batch = null;
let roster = null;
let decodes = null;
let signatures = null;
let withoutWasm = false;
let replay = true;
let replayer = null;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === '--pin') pins.push(rest[++i]);
  else if (rest[i] === '--roster') roster = rest[++i];
  else if (rest[i] === '--vector') vectors.push(rest[++i]);
  else if (rest[i] === '--batch') batch = rest[++i];
  else if (rest[i] === '--decode') decodes = rest[++i];
  else if (rest[i] === '--signatures') signatures = rest[++i];
  else if (rest[i] === '--without-wasm') withoutWasm = true;
  else if (rest[i] === '--no-replay') replay = false;
  else files.push(rest[i]);
}
// libsodium (the mental poker's group) initialises asynchronously: the work starts once it is ready.
globalThis.fairdealReady.then(async () => {
  if (replay && !vectors.length && signatures === null && decodes === null) replayer = await loadEngine(page);
  if (withoutWasm) {
    delete globalThis.fairdealSodium;
    globalThis.fairdealSodiumFailure = 'refused for this run (--without-wasm)';
  }
  if (vectors.length) {
    const out = vectors.map((file) => {
      const vector = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (vector.cases) {
        return vector.cases.map((c) => {
          const found = V.drawsFromStream(V.fromHex(c.stream), c.deck_size);
          return found === null ? { draws: null, bytes_used: null } : { draws: found.draws, bytes_used: found.used };
        });
      }
      return (vector.hand_vectors || []).map((h) => {
        const order = V.deriveOrder(V.fromHex(h.deck_input), vector.deck);
        return { deck_order: order, deal: V.seatDeal(order, vector.deal_pattern, h.dealer, vector.players.length) };
      });
    });
    process.stdout.write(JSON.stringify(out));
  } else if (signatures !== null) {
    const triples = JSON.parse(fs.readFileSync(signatures, 'utf8'));
    process.stdout.write(JSON.stringify(triples.map(([key, message, signature]) => V.ed25519Verify(key, V.fromHex(message), V.fromHex(signature)))));
  } else if (decodes !== null) {
    const out = JSON.parse(fs.readFileSync(decodes, 'utf8')).map((hex) => {
      try {
        return V.toHex(V.encode(V.decode(V.fromHex(hex))));
      } catch (error) {
        if (!(error instanceof V.CanonicalError)) throw error;
        return null;
      }
    });
    process.stdout.write(JSON.stringify(out));
  } else if (batch !== null) {
    const cases = JSON.parse(fs.readFileSync(batch, 'utf8'));
    process.stdout.write(JSON.stringify(cases.map((c) => run(c.files, c.pins, c.roster || null))));
  } else {
    process.stdout.write(JSON.stringify(run(files, pins, roster)));
  }
});

function run(names, pinLines, rosterName) {
  const read = (file) => ({ name: file, bytes: new Uint8Array(fs.readFileSync(file)) });
  const inputs = names.map(read);
  let report;
  try {
    report = V.verifyFiles(inputs, pinLines.join('\n'), rosterName === null ? null : read(rosterName), replayer);
  } catch (error) {
    return { ok: false, crash: `${error.name}: ${error.message}` }; // what the page would show as "could not finish"
  }
  return { ok: report.ok, usage: report.usage || null, failures: report.failures, notes: report.notes,
    caveats: report.caveats, unverified: report.unverified, transcripts: report.transcripts,
    mentalPoker: report.mentalPoker || 0, mentalPokerEnd: report.mentalPokerEnd || null, proved: report.proved || [],
    replayed: Boolean(report.replayed) };
}
