#!/usr/bin/env node
// One mental-poker seat (fairdeal/web/mental_poker/player.js) as a child process speaking JSON lines: each line
// on standard input is a request {op, ...}, each line on standard output its answer, {ok: value} or {error:
// {kind, detail, ...}} (kind 'mental-poker' or 'signed' for a message it refuses, 'usage' for a request it cannot
// read). The seat holds its secrets here; what it answers is only what the protocol lets it send.
//   mental-poker-player [--page PAGE] [--engine-host]
// --engine-host: a simulation's engine host (fairdeal/protocols/mental_poker/source.py) may ask for the seat's raw
// shares of the cards nobody holds, to assemble the whole deal; without it the seat never gives them out.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const vm = require('vm');
const { loadEngine, loadPage } = require('./load_page.cjs');

const PAGE = path.join(__dirname, '..', 'static', 'vendor', 'verifier.html');
const PLAYER = path.join(__dirname, '..', 'mental_poker', 'player.js');

function fail(text) {
  process.stderr.write(`Error: ${text}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const engineHost = argv.includes('--engine-host');
const rest = argv.filter((a) => a !== '--engine-host');
const page = rest[0] === '--page' ? rest[1] : PAGE;
if (page === undefined || (rest.length && rest[0] !== '--page') || rest.length > 2) fail('usage: mental-poker-player [--page PAGE] [--engine-host]');
const ready = loadPage(page, fail);
vm.runInThisContext(fs.readFileSync(PLAYER, 'utf8'), { filename: 'player.js' });
const MP = globalThis.FairdealMP;

class Usage extends Error {}

let player = null;
let signer = null;
let engine = null; // the page's engine (Pyodide), booted on the first settlement
let seat = null; // {roster, name, seed}: who this process is, for every hand of the session
const seated = () => {
  if (player === null) throw new Usage('no hand is set up: send {op: "hand", ...} first');
  return player;
};

const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};

const OPS = {
  seat: (r) => {
    signer = new MP.player.Signer(r);
    seat = { roster: r.roster, name: r.name, seed: r.seed };
    player = null;
    return { public: signer.roster.seats[signer.seat].key };
  },
  // A new hand (or a new attempt at one) forgets the last one's secrets.
  hand: (r) => {
    player = null;
    player = new MP.player.Player({ ...seat, hand: r.hand, attempt: r.attempt, pattern: r.pattern, players: r.players });
    return { table_id: player.setup.context.tableId, head: player.head };
  },
  receive: (r) => { seated().receive(r.message); return null; },
  keys: () => seated().keys(),
  shuffle: (r) => seated().shuffle(r.permutation === undefined ? null : r.permutation),
  deal: () => seated().deal(),
  talon: (r) => seated().openTalon(r.talon),
  take: (r) => seated().take(r.to, r.talon),
  turn: () => seated().turn(),
  dummy: () => seated().openDummy(),
  discard: (r) => seated().discard(r.cards),
  play: (r) => seated().play(r.card),
  open: () => seated().openHand(),
  reveal: () => seated().reveal(),
  'discard-open': () => seated().openDiscard(),
  abandon: (r) => seated().witnessAbandon(r.absent, r.at),
  refuse: (r) => seated().refuse(r.message, r.error),
  'record-refusal': (r) => seated().recordRefusal(r.record),
  // A seat dealt the hand checks the record against the cards proved; one that sat it out has nothing to check.
  // Either way the seat remembers the statement: the settlement closes the hands whose records it signed.
  record: (r) => {
    const statement = player !== null && player.hand === r.hand
      ? player.signRecord(r.record)
      : MP.player.signRecord(signer, r.record, r.head, null, r.hand);
    signer.records.set(r.hand, statement);
    return statement;
  },
  // The settlement put to the seat, with the transcripts it closes as the host shows them: signed, or refused
  // with the reason (MP.player.settlementObjection).
  // The amounts are checked against the seat's own sheet by the page's engine, booted on the first settlement.
  settlement: async (r) => {
    if (!r.proposal || typeof r.proposal !== 'object' || !Array.isArray(r.complete)) {
      throw new Usage('a settlement request is {proposal, complete: [transcript, ...], stopped: transcript or null}');
    }
    const stopped = r.stopped === undefined ? null : r.stopped;
    engine = engine || loadEngine(page);
    const objection = MP.player.settlementObjection(signer, r.proposal, r.complete, stopped, await engine);
    return signer.signSettlement(r.proposal, objection);
  },
  cards: () => seated().handCards(),
  hidden: () => {
    if (!engineHost) throw new Usage('the shares of the cards nobody holds go only to a simulation\'s engine host (--engine-host)');
    return seated().hiddenShares();
  },
  head: () => seated().head,
  cpu: () => cpu(),
};

async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { error: { kind: 'usage', detail: `a request is one JSON object a line: ${error.message}` } };
  }
  const op = request && typeof request === 'object' ? request.op : undefined;
  if (!Object.prototype.hasOwnProperty.call(OPS, op)) return { error: { kind: 'usage', detail: `unknown op ${JSON.stringify(op)}` } };
  if (op !== 'seat' && op !== 'cpu' && signer === null) return { error: { kind: 'usage', detail: 'no seat: send {op: "seat", ...} first' } };
  try {
    const value = await OPS[op](request);
    return { ok: value === undefined ? null : value };
  } catch (error) {
    if (error instanceof Usage) return { error: { kind: 'usage', detail: error.message } };
    if (error instanceof MP.player.SignedMessageError || error instanceof MP.group.MentalPokerError) {
      return { error: MP.player.errorJson(error) };
    }
    return { error: { kind: 'crash', detail: String(error && error.stack ? error.stack : error) } };
  }
}

// Standard input waits, buffered, until libsodium is ready.
// Requests are answered one at a time, in order (a settlement waits for the engine).
ready.then(() => {
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let done = Promise.resolve();
  lines.on('line', (line) => {
    done = done.then(() => answer(line)).then((reply) => { process.stdout.write(JSON.stringify(reply) + '\n'); });
  });
});
