// The Player role of fairdeal-commit-reveal/4 (protocols/commit-reveal.md), byte for byte as the Python parties
// (fairdeal/protocols/commit_reveal4/parties.py): canonical JSON, length-prefixed typed context tuples, every
// message an envelope signed by the player's identity key over its context and chained to the message before it.
// The same module runs in the browser (through the page's import map) and under Node in the tests.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { shake256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes, concatBytes } from '@noble/hashes/utils.js';

export const PROTOCOL = 'fairdeal-commit-reveal/4';
export const SESSION = 'pulya';
const SIGNED_DOMAIN = 'fairdeal-signed/4';
const ROSTER_FORMAT = 'fairdeal-roster';
const KEY_FORMAT = 'fairdeal-identity-key';
const MAX_INT = 2n ** 63n;

export const K = {
  OPEN: 'session-open', ACCEPT: 'session-accept', HAND_OPEN: 'hand-open', COMMIT: 'seed-commit',
  REVEAL_REQUEST: 'reveal-request', REVEAL: 'seed-reveal', CLOSE: 'hand-close', RECORD_SIGN: 'record-sign',
  REFUSAL: 'refusal', ABORT: 'abort', SETTLEMENT: 'settlement', SETTLEMENT_SIGN: 'settlement-sign', END: 'end',
};
const FROM_SERVICE = new Set([K.OPEN, K.HAND_OPEN, K.REVEAL_REQUEST, K.CLOSE, K.ABORT, K.SETTLEMENT, K.END]);

// Sorted keys (by code point), no whitespace, integers only, only '"', '\' and control characters escaped:
// fairdeal/protocols/canonical.py's encode.
export function canonicalJson(value) {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') {
    if (/\p{Surrogate}/u.test(value)) throw new Error('canonical JSON holds no lone surrogate');
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error('canonical JSON carries whole numbers only');
    return String(value);
  }
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  const keys = Object.keys(value).sort(comparePoints);
  return '{' + keys.map((k) => canonicalJson(k) + ':' + canonicalJson(value[k])).join(',') + '}';
}

// Python sorts keys by code point; JavaScript's default sort compares UTF-16 units (they differ above U+FFFF).
function comparePoints(a, b) {
  const x = Array.from(a), y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

export const encode = (value) => utf8ToBytes(canonicalJson(value));

function u32(n) {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
}

// A domain-separation tuple (canonical.context): the part count, then each part tagged s/i/b and length-prefixed.
export function context(...parts) {
  const out = [u32(parts.length)];
  for (const part of parts) {
    let tag, data;
    if (typeof part === 'string') [tag, data] = ['s', utf8ToBytes(part)];
    else if (typeof part === 'number') {
      const n = BigInt(part);
      if (!Number.isSafeInteger(part) || n < -MAX_INT || n >= MAX_INT) throw new Error('a context integer is 64-bit');
      data = new Uint8Array(8);
      new DataView(data.buffer).setBigInt64(0, n, false);
      tag = 'i';
    } else if (part instanceof Uint8Array) [tag, data] = ['b', part];
    else throw new Error('a context part is a string, an integer or bytes');
    out.push(utf8ToBytes(tag), u32(data.length), data);
  }
  return concatBytes(...out);
}

export const sha256Hex = (data) => bytesToHex(sha256(data));

// ---- identity keys --------------------------------------------------------------------------------------------
export function newSecret() {
  return bytesToHex(ed25519.utils.randomPrivateKey());
}

export function publicKey(secretHex) {
  return bytesToHex(ed25519.getPublicKey(hexToBytes(secretHex)));
}

export function signBytes(secretHex, data) {
  return bytesToHex(ed25519.sign(data, hexToBytes(secretHex)));
}

export function verifyBytes(publicHex, data, signatureHex) {
  try {
    return ed25519.verify(hexToBytes(signatureHex), data, hexToBytes(publicHex));
  } catch {  // a key or signature that does not decode verifies nothing
    return false;
  }
}

// A statement signed as its canonical JSON (the connection's login).
export const sign = (secretHex, statement) => signBytes(secretHex, encode(statement));

export function loginStatement(table, nonce) {
  return { statement: 'serve-login', table, nonce };
}

// The key file `fairdeal keys new` writes (fairdeal/protocols/identity.py), so either side can read the other's.
export function keyFile(secretHex, name) {
  return canonicalJson({ format: KEY_FORMAT, version: 1, name, private: secretHex, public: publicKey(secretHex) });
}

export function readKeyFile(text) {
  const doc = JSON.parse(text);
  const fields = ['format', 'name', 'private', 'public', 'version'];
  if (!doc || typeof doc !== 'object' || Object.keys(doc).sort().join() !== fields.join() || doc.format !== KEY_FORMAT) {
    throw new Error(`not a ${KEY_FORMAT} file`);
  }
  if (doc.version !== 1 || typeof doc.name !== 'string') throw new Error('$.version or $.name: not a version 1 key file');
  if (!/^[0-9a-f]{64}$/.test(doc.private)) throw new Error('$.private must be 64 lowercase hex digits');
  if (publicKey(doc.private) !== doc.public) throw new Error('$.public is not the public key of $.private');
  return { secret: doc.private, key: doc.public, name: doc.name };
}

export function randomSeed() {
  const seed = new Uint8Array(32);
  globalThis.crypto.getRandomValues(seed);
  return bytesToHex(seed);
}

// ---- the roster and the envelope ------------------------------------------------------------------------------
export const rosterMessage = (body) => concatBytes(context(ROSTER_FORMAT, 1), encode(body));
export const rosterHash = (body) => sha256Hex(encode(body));

const content = (e) => ({ sender: e.sender, kind: e.kind, hand: e.hand, body: e.body, prev: e.prev });
const prefix = (s, hand) => context(SIGNED_DOMAIN, s.table, s.session, hand, s.roster);
export const signedBytes = (s, e) => concatBytes(prefix(s, e.hand), encode(content(e)));
export const digest = (e) => sha256Hex(concatBytes(encode(content(e)), hexToBytes(e.signature)));

export function seal(secretHex, s, sender, kind, hand, body, prev) {
  const envelope = { sender, kind, hand, body, prev };
  return { ...envelope, signature: signBytes(secretHex, signedBytes(s, envelope)) };
}

// ---- the derivations (commit_reveal4/derive.py) ---------------------------------------------------------------
export const chainStep = (s, hand, linkHex) =>
  sha256Hex(context(PROTOCOL + '/chain', s.table, s.session, s.roster, hand, hexToBytes(linkHex)));
export const seedCommitment = (s, hand, attempt, seat, seedHex) =>
  sha256Hex(context(PROTOCOL + '/seed', s.table, s.session, s.roster, hand, attempt, seat, hexToBytes(seedHex)));
export const recordHash = (record) => sha256Hex(encode(record === undefined ? null : record));

export function deckInput(s, hand, attempt, deck, serviceSeedHex, beaconHex, seedsHex) {
  const beacon = beaconHex === null ? new Uint8Array(0) : hexToBytes(beaconHex);
  return context(PROTOCOL + '/deck', s.table, s.session, s.roster, hand, attempt, deck, hexToBytes(serviceSeedHex),
    beacon, ...seedsHex.map(hexToBytes));
}

const RANK_LABELS = ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
export const cardAscii = (code) => RANK_LABELS[code & 7] + 'SCDH'[code >> 3];

// The deck's cards in code order, where the shuffle starts (Hussar's 24 cards are the nines up).
export function deckCodes(deck) {
  const codes = [];
  for (let c = 0; c < 32; c++) if (deck !== 'hussar24' || (c & 7) >= 2) codes.push(c);
  return codes;
}

// Fisher-Yates from the SHAKE256 stream with rejection sampling (fairdeal/protocols/fisher_yates.py).
export function deriveOrder(input, deck) {
  const start = deckCodes(deck);
  for (let length = 64; ; length *= 2) {
    const stream = shake256(input, { dkLen: length });
    const order = start.slice();
    let pos = 0, ok = true;
    for (let i = order.length - 1; i > 0 && ok; i--) {
      const m = i + 1, limit = 256 - (256 % m);
      while (pos < stream.length && stream[pos] >= limit) pos++;
      if (pos === stream.length) { ok = false; break; }
      const j = stream[pos++] % m;
      [order[i], order[j]] = [order[j], order[i]];
    }
    if (ok) return order;
  }
}

// Exact sums of the settlement's amounts ("-130", "13/2"): they must come to zero.
function fractionSum(texts) {
  let num = 0n, den = 1n;
  for (const text of texts) {
    const m = /^(-?\d+)(?:\/(\d+))?$/.exec(text);
    if (!m) return null;
    const [n, d] = [BigInt(m[1]), BigInt(m[2] ?? '1')];
    [num, den] = [num * d + n * den, den * d];
  }
  return num === 0n ? 0 : 1;
}

// A flat dict as Python writes it (the refusal of an end names the end expected, byte for byte as Python's).
function pyRepr(value) {
  if (Array.isArray(value)) return '[' + value.map(pyRepr).join(', ') + ']';
  if (value !== null && typeof value === 'object') {
    return '{' + Object.entries(value).map(([k, v]) => `'${k}': ${pyRepr(v)}`).join(', ') + '}';
  }
  return typeof value === 'string' ? `'${value}'` : String(value);
}

export const MAX_ATTEMPTS = 3; // deals of one hand: after the third abort the evening ends

// parties.py's proven_absent: the seat each valid abort of a hand's messages proves absent, in order (an abort is
// valid when it names the first seat without an answer to the signed request it cites).
function provenAbsent(messages, n) {
  const absent = [];
  let start = 0;
  messages.forEach((e, index) => {
    if (e.kind !== K.ABORT) return;
    const attempt = messages.slice(start, index);
    start = index + 1;
    const asked = attempt.find((x) => x.kind === K.REVEAL_REQUEST);
    const [step, request] = asked ? [K.REVEAL, asked] : [K.COMMIT, attempt[0]];
    const answered = attempt.filter((x) => x.kind === step).length;
    const b = e.body;
    if (request && answered < n && b.step === step && canonicalJson(b.missing) === canonicalJson([answered]) &&
        b.request === digest(request)) {
      absent.push(answered);
    }
  });
  return absent;
}

// parties.py's end_problem: an aborted hand is dealt again until its MAX_ATTEMPTS-th abort, not ended.
function endProblem(messages) {
  const aborts = messages.filter((e) => e.kind === K.ABORT).length;
  if (messages.length && messages[messages.length - 1].kind === K.ABORT && aborts < MAX_ATTEMPTS) {
    return `a hand aborted ${aborts} time(s) is dealt again (up to ${MAX_ATTEMPTS} attempts), not ended`;
  }
  return null;
}

// ---- the player -----------------------------------------------------------------------------------------------
// A failed check, worded as the Python SignedMessageError is ("PARTY: CHECK: what"), so refusals match byte for byte.
export class Refusal extends Error {
  constructor(check, reason, party = 'service') {
    super(`${party}: ${check}: ${reason}`);
    this.check = check;
    this.party = party;
  }
}

// The seat's view of the session: every message the relay shows is checked (sender on the roster, signature under
// the roster key for this table, session, hand and roster, the chain link, the kind's sender) and kept; each step
// checks what it needs before it answers, else the answer is a signed refusal. Nothing is taken into the chain
// on sending: a message counts once the relay shows it back, so the chain is always the service's chain.
export class Player {
  constructor(seat, secretHex, rosterDoc, deck) {
    const body = rosterDoc.roster;
    if (!body.seats[seat] || body.seats[seat].key !== publicKey(secretHex)) {
      throw new Refusal('roster', `the roster does not give seat ${seat} my identity key`);
    }
    this.seat = seat; this.secret = secretHex; this.rosterDoc = rosterDoc; this.deck = deck;
    this.n = body.seats.length;
    this.s = { table: body.table, session: body.session, roster: rosterHash(body) };
    this.keys = { service: body.service };
    body.seats.forEach((x, i) => { this.keys[i] = x.key; });
    this.chain = []; this.last = this.s.roster; this.done = 0; this.expected = null;
    // The hands countersigned and the service's next link before my last countersignature (an end voids that hand).
    this.before = { done: 0, expected: null };
  }

  party(sender) {
    return sender === 'service' ? 'service' : `player ${this.rosterDoc.roster.seats[sender].name}`;
  }

  // Take the relay's messages into the chain, in order; a message that does not hold stops here (a Refusal).
  absorb(envelopes) {
    for (const e of envelopes) {
      const key = this.keys[e.sender];
      const where = `${e.kind} from ${key ? this.party(e.sender) : e.sender} (hand ${e.hand})`;
      if (!key) throw new Refusal('sender', `${where}: the sender is not on the roster`);
      if (!verifyBytes(key, signedBytes(this.s, e), e.signature)) {
        throw new Refusal('signature', `${where}: the signature does not verify under the sender's identity key`);
      }
      if (e.prev !== this.last) throw new Refusal('chain link', `${where}: it does not follow the message before it`);
      if (e.kind !== K.REFUSAL && FROM_SERVICE.has(e.kind) !== (e.sender === 'service')) {
        throw new Refusal('message kind', `${where}: that party may not send it`);
      }
      this.chain.push(e);
      this.last = digest(e);
      if (e.sender === this.seat) this.ownAnswer(e);
    }
  }

  // My own signed answers in the chain stand for the checks I made before giving them, so a page rebuilt from
  // the relay's chain (after a reload) knows again the hands it countersigned and the service's next chain link.
  ownAnswer(e) {
    if (e.kind === K.ACCEPT) this.expected = this.chain[0].body.anchor;
    if (e.kind === K.RECORD_SIGN && e.hand !== this.done) {  // not yet taken in by countersign() itself
      const close = [...this.chain].reverse().find((x) => x.kind === K.CLOSE);
      this.before = { done: this.done, expected: this.expected };
      this.done = e.hand;
      this.expected = close.body.seed;
    }
  }

  send(hand, kind, body) {
    return seal(this.secret, this.s, this.seat, kind, hand, body, this.last);
  }

  refuse(hand, step, error) {
    const check = error instanceof Refusal ? error.check : 'protocol';
    return this.send(hand, K.REFUSAL, { step, check, reason: String(error.message ?? error) });
  }

  // Each step: the answer, or a signed refusal naming the check that failed.
  answer(step, hand, fn) {
    try {
      return fn();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return this.refuse(hand, step, error);
    }
  }

  // Sign the roster once every field is what I agreed to: my seat, name and key, the protocol and table.
  signRoster(name) {
    const body = this.rosterDoc.roster, me = body.seats[this.seat];
    if (me.name !== name) throw new Refusal('roster', `the roster names seat ${this.seat} ${me.name}, not ${name}`);
    if (body.protocol !== PROTOCOL) throw new Refusal('roster', `the roster is for ${body.protocol}`);
    if (!verifyBytes(body.service, rosterMessage(body), this.rosterDoc.signatures.service)) {
      throw new Refusal('roster', "the service's signature of the roster does not verify");
    }
    return signBytes(this.secret, rosterMessage(body));
  }

  acceptSession(rosterDoc) {
    return this.answer(K.ACCEPT, 0, () => {
      const body = rosterDoc.roster;
      if (rosterHash(body) !== this.s.roster) throw new Refusal('roster', 'the roster is not the one I signed');
      const message = rosterMessage(body);
      if (!verifyBytes(body.service, message, rosterDoc.signatures.service)) throw new Refusal('roster', 'service signature');
      body.seats.forEach((x, i) => {
        if (!verifyBytes(x.key, message, rosterDoc.signatures.seats[i])) {
          throw new Refusal('roster', `player ${x.name} (seat ${i}): the signature does not verify`);
        }
      });
      const open = this.chain[0];
      if (!open || open.kind !== K.OPEN || this.chain.length !== this.seat + 1) {
        throw new Refusal('session open', 'the session opening is not what the chain holds');
      }
      this.expected = open.body.anchor;
      return this.send(0, K.ACCEPT, { roster: this.s.roster });
    });
  }

  // The current attempt's hand-open and the commitments since it, checked as the Python player does.
  attempt(hand) {
    let index = -1;
    this.chain.forEach((e, i) => { if (e.kind === K.HAND_OPEN) index = i; });
    if (index < 0 || this.chain[index].hand !== hand) throw new Refusal('hand open', `no signed hand-open for hand ${hand}`);
    const opened = this.chain[index];
    if (hand !== this.done + 1) throw new Refusal('hand sequence', `hand ${hand} is not the next hand (${this.done + 1})`);
    if (opened.body.commitment !== this.expected) {
      throw new Refusal('commitment', "the service commitment is not its chain's next link");
    }
    if (opened.body.dealer >= this.n) throw new Refusal('hand open', 'the dealer is not a seat');
    const commits = [];
    for (const e of this.chain.slice(index + 1)) {
      if (e.kind !== K.COMMIT) continue;
      if (e.sender !== commits.length || e.body.attempt !== opened.body.attempt) {
        throw new Refusal('commitment order', 'a commitment out of seat order');
      }
      commits.push(e);
    }
    this.checkAborts(hand, index);
    return { opened, index, commits };
  }

  // An abort before chain[upto] that names me although I answered its request: the relay dropped my answer.
  checkAborts(hand, upto) {
    for (const e of this.chain.slice(0, upto)) {
      if (e.kind !== K.ABORT || e.hand !== hand || !e.body.missing.includes(this.seat)) continue;
      const step = e.body.step, at = e.body.attempt;
      if (this.chain.some((x) => x.sender === this.seat && x.hand === hand && x.kind === step && x.body.attempt === at)) {
        throw new Refusal('abort', 'an abort names me absent, but I answered its request');
      }
    }
  }

  commit(hand, seedHex) {
    return this.answer(K.COMMIT, hand, () => {
      const { opened, commits } = this.attempt(hand);
      if (commits.length !== this.seat) throw new Refusal('commitment order', 'the seats before mine have not all committed');
      const attempt = opened.body.attempt;
      return this.send(hand, K.COMMIT, { attempt, commitment: seedCommitment(this.s, hand, attempt, this.seat, seedHex) });
    });
  }

  // The attempt the last hand-open asks for (which seed to use); the step itself checks the hand-open.
  currentAttempt() {
    const opened = [...this.chain].reverse().find((e) => e.kind === K.HAND_OPEN);
    return opened ? opened.body.attempt : 0;
  }

  reveal(hand, seedHex) {
    return this.answer(K.REVEAL, hand, () => {
      const { opened, index, commits } = this.attempt(hand);
      if (commits.length !== this.n) throw new Refusal('commitments', 'not every seat has a signed commitment yet');
      if (!this.chain.slice(index).some((e) => e.kind === K.REVEAL_REQUEST)) {
        throw new Refusal('reveal request', 'the service has not asked for the seeds');
      }
      const attempt = opened.body.attempt;
      if (commits[this.seat].body.commitment !== seedCommitment(this.s, hand, attempt, this.seat, seedHex)) {
        throw new Refusal('seed', 'the seed kept in this browser is not the one I committed to');
      }
      return this.send(hand, K.REVEAL, { attempt, seed: seedHex });
    });
  }

  // Before countersigning: the service's seed opens its commitment, every seed opens its seat's commitment, the
  // deck is the one those seeds derive, and the cards dealt to me are the ones the published deal gives my seat.
  countersign(hand, myCards) {
    return this.answer(K.RECORD_SIGN, hand, () => {
      const close = this.chain[this.chain.length - 1 - this.signedSinceClose()];
      if (!close || close.kind !== K.CLOSE || close.hand !== hand) throw new Refusal('hand close', 'no hand-close to countersign');
      this.judgeClose(hand, close, myCards);
      this.before = { done: this.done, expected: this.expected };
      this.done = hand;
      this.expected = close.body.seed;
      return this.send(hand, K.RECORD_SIGN, { record: recordHash(close.body.record) });
    });
  }

  judgeClose(hand, close, myCards) {
    const { opened, index, commits } = this.attempt(hand);
    const body = close.body, attempt = opened.body.attempt;
    if (chainStep(this.s, hand, body.seed) !== opened.body.commitment) {
      throw new Refusal('reveal', "the service's seed does not open its commitment");
    }
    const seeds = [];
    for (const e of this.chain.slice(index)) {
      if (e.kind !== K.REVEAL) continue;
      if (seedCommitment(this.s, hand, attempt, e.sender, e.body.seed) !== commits[e.sender]?.body.commitment) {
        throw new Refusal('seed opening', 'the seed does not open the commitment', this.party(e.sender));
      }
      seeds[e.sender] = e.body.seed;
    }
    if (seeds.filter(Boolean).length !== this.n) throw new Refusal('seed opening', "not every seat's seed is revealed");
    const input = deckInput(this.s, hand, attempt, this.deck, body.seed, opened.body.beacon, seeds);
    const order = deriveOrder(input, this.deck).map(cardAscii);
    if (order.join(' ') !== body.deck_order.join(' ')) {
      throw new Refusal('deck derivation', 'the deck order is not the one the seeds derive');
    }
    const mine = (body.deal.hands[this.seat] || []).slice().sort().join(' ');
    if (myCards && mine !== myCards.map(cardAscii).sort().join(' ')) {
      throw new Refusal('deal pattern', 'the cards I was dealt are not the ones the deal gives my seat');
    }
  }

  signedSinceClose() {
    let count = 0;
    for (let i = this.chain.length - 1; i >= 0 && this.chain[i].kind === K.RECORD_SIGN; i--) count++;
    return count;
  }

  // The settlement closes the hands I countersigned (after an evening's end, those before the hand it voids, the
  // end checked against my own chain first), names every seat and sums to zero.
  signSettlement() {
    return this.answer(K.SETTLEMENT_SIGN, 0, () => {
      const settlement = [...this.chain].reverse().find((e) => e.kind === K.SETTLEMENT);
      if (!settlement) throw new Refusal('settlement', 'no settlement');
      const done = this.chain.some((e) => e.kind === K.END) ? this.ended() : this.done;
      const names = this.rosterDoc.roster.seats.map((x) => x.name).sort().join('\u0000');
      const amounts = settlement.body.amounts;
      if (settlement.body.hands !== done || Object.keys(amounts).sort().join('\u0000') !== names ||
          fractionSum(Object.values(amounts)) !== 0) {
        throw new Refusal('settlement', `the settlement does not close the ${done} hands I countersigned`);
      }
      return this.send(0, K.SETTLEMENT_SIGN, { settlement: digest(settlement) });
    });
  }

  // The hands an evening's end leaves countersigned, its every field re-derived from my own chain as the Python
  // player does (parties.py: _ended): it follows the last message of the hand it voids (every attempt of it), and
  // charges, after the third abort, every seat the valid aborts prove absent; the first seat without a
  // countersignature after the signed hand-close; or for a refusal the party at fault in what the refuser was shown
  // by my own checks (none when that is the service), else the refuser. An end after fewer aborts is refused.
  ended() {
    const index = this.chain.findLastIndex((e) => e.kind === K.END);
    const end = this.chain[index];
    const messages = this.handMessages(index);
    const hand = messages.length ? messages[0].hand : 0;
    const now = { done: this.done, expected: this.expected };
    const base = hand === this.done ? this.before : now;
    const last = messages[messages.length - 1];
    if (!messages.length || hand !== base.done + 1 || digest(last) !== end.body.evidence) {
      throw new Refusal('end', 'the end does not follow the hand in progress');
    }
    const problem = endProblem(messages);
    if (problem !== null) throw new Refusal('end', problem);
    Object.assign(this, base);
    let charged;
    try {
      this.checkAborts(hand, index);
      charged = this.endCharge(hand, messages);
    } finally {
      Object.assign(this, now);
    }
    const step = last.kind === K.REFUSAL || last.kind === K.ABORT ? last.kind : K.RECORD_SIGN;
    const expected = { hand, step, charged, evidence: digest(last) };
    if (canonicalJson(end.body) !== canonicalJson(expected)) throw new Refusal('end', `the end should be ${pyRepr(expected)}`);
    return base.done;
  }

  // The messages of the last hand begun before chain[index], every attempt from its first hand-open.
  handMessages(index) {
    const opens = [];
    this.chain.slice(0, index).forEach((e, i) => { if (e.kind === K.HAND_OPEN) opens.push(i); });
    if (!opens.length) return [];
    const hand = this.chain[opens[opens.length - 1]].hand;
    return this.chain.slice(opens.find((i) => this.chain[i].hand === hand), index);
  }

  endCharge(hand, messages) {
    const last = messages[messages.length - 1];
    if (last.kind === K.ABORT) return provenAbsent(messages, this.n);
    if (last.kind === K.REFUSAL) {
      const party = this.faultBefore(hand, messages);
      if (party === null) return [last.sender];
      return this.rosterDoc.roster.seats.map((_, i) => i).filter((i) => this.party(i) === party).slice(0, 1);
    }
    const close = messages.findLastIndex((e) => e.kind === K.CLOSE);
    return close < 0 ? [] : [messages.length - 1 - close];
  }

  // The party at fault in what a refusal answered, by my own checks (null: everything I check holds).
  faultBefore(hand, segment) {
    try {
      this.attempt(hand);
      const close = segment.findLast((e) => e.kind === K.CLOSE);
      if (close) this.judgeClose(hand, close, null);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return error.party;
    }
    return null;
  }
}
