// Runs the mental-poker verifier's scripts (read from the built verifier page) under Node and prints JSON:
//   node run_mental_poker.cjs PAGE --vectors FILE   (group and proof vectors Python wrote: what JS computes of each)
//   node run_mental_poker.cjs PAGE --batch FILE     (a list of transcript-file lists: a report for each)
//   node run_mental_poker.cjs PAGE --mutations FILE ({files, changes}: the first finding of each changed hand)
//   node run_mental_poker.cjs PAGE --prove FILE     (a player's key share, shuffle and shares, made in JS)
//   node run_mental_poker.cjs PAGE --opening FILE   (the signed opening of a hand, every party in JS)
//   node run_mental_poker.cjs PAGE --sums FILE      ([{scalars, points}] as hex: each Σ s·P, or the error it raises)
'use strict';
const fs = require('fs');
const { loadPage } = require('../../fairdeal/web/bin/load_page.cjs');

const [page, mode, input] = process.argv.slice(2);
loadPage(page, (reason) => {
  throw new Error(reason);
});
const V = globalThis.FairdealVerifier;
const MP = globalThis.FairdealMP;
const G = MP.group;
const data = JSON.parse(fs.readFileSync(input, 'utf8'));

// Whether ``work`` passes; a MentalPokerError is a rejection, anything else a crash the test must see.
function passes(work) {
  try {
    work();
    return true;
  } catch (error) {
    if (error instanceof G.MentalPokerError) return false;
    throw error;
  }
}

const scalar = (hex) => G.decodeScalar(G.fromHex(hex));
const context = (v) => MP.fiatShamir.handContext(v.table_id, v.hand);

function possession(v) {
  return passes(() => {
    G.validate([v.public], 'key share');
    MP.proofs.verifyPossession(context(v), v.player, v.public, { challenge: scalar(v.c), response: scalar(v.s) });
  });
}

function equalLogs(v) {
  return passes(() => {
    const out = new G.Combination();
    const proof = { a: v.proof.a, b: v.proof.b, s: scalar(v.proof.s) };
    MP.proofs.addEqualLogsEquations(context(v), v.player, G.fromHex(v.label), v.public, v.bases, v.images, proof, out);
    if (!out.isIdentity()) throw new G.MentalPokerError('does not verify');
  });
}

function shuffle(v) {
  return passes(() => {
    const { deck, proof } = v.message;
    const read = { ...proof, k: proof.k.map(scalar), k_chain: proof.k_chain.map(scalar), k_open: proof.k_open.map(scalar) };
    MP.shuffle.verifyShuffles(context(v), v.joint_key, [{ player: v.player, deckIn: v.deck_in, deckOut: deck, proof: read }]);
  });
}

function cpu() {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
}

function report(files) {
  const docs = files.map((file) => ({ source: file, doc: V.decode(new Uint8Array(fs.readFileSync(file))) }));
  const start = cpu();
  let result;
  try {
    result = MP.verify.verifyTranscripts(docs);
  } catch (error) {
    return { ok: false, crash: `${error.name}: ${error.message}`, lines: [] }; // what the page shows as "could not finish"
  }
  return { ok: result.ok, lines: result.failures.map(MP.verify.line), notes: result.notes, caveats: result.caveats,
    seconds: cpu() - start };
}

// A copy of ``doc`` with the leaf at ``path`` set to ``value``, copying only the containers along the path (the
// unchanged messages stay the same objects, as in the Python benchmark).
function changed(doc, path, value) {
  const top = Array.isArray(doc) ? [...doc] : { ...doc };
  let holder = top;
  for (const key of path.slice(0, -1)) {
    holder[key] = Array.isArray(holder[key]) ? [...holder[key]] : { ...holder[key] };
    holder = holder[key];
  }
  holder[path[path.length - 1]] = value;
  return top;
}

// {files, changes: [[file index, path, value]]}: the honest hands verified (filling the checkpoints), then each
// change alone; counts, the first finding of each, and the CPU time.
function mutations({ files, changes }) {
  const docs = files.map((file) => V.decode(new Uint8Array(fs.readFileSync(file))));
  const checkpoints = new MP.hand.Checkpoints();
  let start = cpu();
  const honest = docs.map((doc, i) => MP.verify.verifyTranscripts([{ source: files[i], doc }], undefined, checkpoints).ok);
  const honestSeconds = cpu() - start;
  start = cpu();
  const first = changes.map(([index, path, value]) => {
    const report = MP.verify.verifyTranscripts([{ source: files[index], doc: changed(docs[index], path, value) }], undefined, checkpoints);
    return report.ok ? null : MP.verify.line(report.failures[0]);
  });
  return { honest, honest_seconds: honestSeconds, seconds: cpu() - start, first };
}

// {table_id, hand, player, joint_key, deck, positions}: the player's key share, his shuffle of ``deck`` and his
// decryption shares of the shuffled deck at ``positions`` (one player's part of a deal), with the CPU seconds.
function prove(v) {
  const context = MP.fiatShamir.handContext(v.table_id, v.hand);
  const start = cpu();
  const key = MP.party.keyShare(context, v.player);
  const shuffled = MP.party.shuffle(context, v.player, v.joint_key, v.deck);
  const shares = MP.party.decryptionShares(context, v.player, key.secret, key.publicKey, shuffled.deck, v.positions);
  return { seconds: cpu() - start, keys: key.message, shuffle: shuffled, deal: shares };
}

// {table, session, roster, hand, attempt, pattern, players: [{name, seat, seed}] in hand order}: the signed opening
// (keys, shuffles, deal) of three or more JS parties, each with its own secrets, chained from the genesis.
function opening(v) {
  const bound = V.context(MP.verify.PROTOCOL_V4, v.table, v.session, v.roster, v.attempt);
  const context = MP.fiatShamir.handContext(G.toHex(bound), v.hand);
  const setup = MP.hand.tableSetup(context, v.pattern, v.players.map((p) => p.name), 4);
  let head = setup.genesis();
  const envelopes = [];
  const send = (player, kind, body) => {
    const sealed = MP.party.seal(G.fromHex(player.seed), v, v.hand, player.seat, kind, body, head);
    envelopes.push(sealed.envelope);
    head = sealed.digest;
  };
  const keys = v.players.map((player) => {
    const key = MP.party.keyShare(context, player.name);
    send(player, 'keys', key.message);
    return key;
  });
  const joint = G.pointSum(keys.map((k) => k.publicKey));
  let deck = setup.deck.map((card) => [G.BASE, G.multiMult([1n, 1n], [G.hashToPoint('card/' + card), joint])]);
  for (const player of v.players) {
    const shuffled = MP.party.shuffle(context, player.name, joint, deck);
    send(player, 'shuffle', shuffled);
    deck = shuffled.deck;
  }
  v.players.forEach((player, i) => {
    const positions = setup.dealPositions(player.name);
    send(player, 'deal', MP.party.decryptionShares(context, player.name, keys[i].secret, keys[i].publicKey, deck, positions));
  });
  return envelopes;
}

// Σ s_i·P_i by the verifier's multiplication (the WebAssembly bucket method), or the refusal's message.
function sum({ scalars, points }) {
  try {
    return { sum: G.multiMult(scalars.map((hex) => G.littleEndian(G.fromHex(hex))), points) };
  } catch (error) {
    if (error instanceof G.MentalPokerError) return { error: error.message };
    throw error;
  }
}

// libsodium initialises asynchronously: the work starts once it is ready.
globalThis.fairdealReady.then(() => {
  let out;
  if (mode === '--opening') {
    out = data.map(opening);
  } else if (mode === '--prove') {
    out = data.map(prove);
  } else if (mode === '--mutations') {
    out = mutations(data);
  } else if (mode === '--vectors') {
    out = {
      points: data.labels.map((label) => G.hashToPoint(label)),
      decodes: (data.encodings || []).map((hex) => G.decodePoint(hex) !== null),
      possession: data.possession.map(possession),
      equal_logs: data.equal_logs.map(equalLogs),
      shuffles: data.shuffles.map(shuffle),
      commitments: data.commitments.map((v) => MP.hand.discardCommitment(context(v), v.player, v.positions, v.nonce)),
    };
  } else if (mode === '--sums') {
    out = data.map(sum);
  } else if (mode === '--batch') {
    out = data.map(report);
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  process.stdout.write(JSON.stringify(out));
});
