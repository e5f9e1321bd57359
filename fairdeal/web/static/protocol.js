// The Player role of the commit-reveal protocol (protocols/commit-reveal.md), byte for byte as the Python parties:
// canonical JSON for signed statements, length-prefixed frames for hash inputs, ed25519 and SHA-256 from @noble.
// The same module runs in the browser (through the page's import map) and under Node in the tests.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { shake256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes, concatBytes } from '@noble/hashes/utils.js';

export const PROTOCOL = 'fairdeal-commit-reveal/1';
const CHAIN_DOMAIN = PROTOCOL + '/chain';
const PLAYER_SEED_DOMAIN = PROTOCOL + '/player-seed';
export const SESSION = 'pulya';

// Sorted keys, no whitespace, integers as integers: Python's json.dumps(sort_keys, separators, ensure_ascii=False).
export function canonicalJson(value) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('canonical JSON here carries integers only');
    return String(value);
  }
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  const keys = Object.keys(value).sort(comparePoints);
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(value[k])).join(',') + '}';
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

export function u64(n) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), false);
  return out;
}

export function frame(...fields) {
  const parts = [];
  for (const f of fields) {
    const data = typeof f === 'string' ? utf8ToBytes(f) : f;
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, data.length, false);
    parts.push(len, data);
  }
  return concatBytes(...parts);
}

export function seedCommitment(table, session, hand, player, seed) {
  return bytesToHex(sha256(frame(PLAYER_SEED_DOMAIN, table, session, u64(hand), player, seed)));
}

export function chainStep(table, session, hand, linkHex) {
  return bytesToHex(sha256(frame(CHAIN_DOMAIN, table, session, u64(hand), hexToBytes(linkHex))));
}

export function newSecret() {
  return bytesToHex(ed25519.utils.randomPrivateKey());
}

export function publicKey(secretHex) {
  return bytesToHex(ed25519.getPublicKey(hexToBytes(secretHex)));
}

export function sign(secretHex, statement) {
  return bytesToHex(ed25519.sign(utf8ToBytes(canonicalJson(statement)), hexToBytes(secretHex)));
}

export function verify(publicHex, statement, signatureHex) {
  try {
    return ed25519.verify(hexToBytes(signatureHex), utf8ToBytes(canonicalJson(statement)), hexToBytes(publicHex));
  } catch (e) {
    return false;
  }
}

export function randomSeed() {
  const seed = new Uint8Array(32);
  globalThis.crypto.getRandomValues(seed);
  return bytesToHex(seed);
}

export function seedStatement(session, hand, dealer, seat, serviceCommitment, commitment) {
  return {
    statement: 'seed-commitment', protocol: PROTOCOL, table: session.table, session: session.session, hand,
    dealer, seat, player: session.players[seat].name, service_commitment: serviceCommitment,
    seed_commitment: commitment,
  };
}

export function loginStatement(table, nonce) {
  return { statement: 'serve-login', table, nonce };
}

// What a player checks before countersigning: the service's signature, and its own seat, name and key.
export function checkSession(statement, serviceSignature, seat, name, key) {
  if (!verify(statement.service_key, statement, serviceSignature)) return 'the service signature does not verify';
  const me = statement.players[seat];
  if (!me || me.name !== name || me.key !== key) return 'the roster misstates my seat or key';
  return null;
}

// The service's commitment for a hand must be the chain's next link: the anchor, or the last hand's reveal, and
// each reveal must hash to the commitment before it.
export function checkChain(table, anchor, reveals, hand, serviceCommitment) {
  let expected = anchor;
  for (let h = 1; h < hand; h++) {
    const link = reveals[String(h)];
    if (!link || chainStep(table, SESSION, h, link) !== expected) return `the reveal of hand ${h} does not open its commitment`;
    expected = link;
  }
  return serviceCommitment === expected ? null : `hand ${hand}: the service commitment is not the chain's next link`;
}

export function commitFor(secretHex, session, hand, dealer, seat, serviceCommitment, seedHex) {
  const digest = seedCommitment(session.table, session.session, hand, session.players[seat].name, hexToBytes(seedHex));
  const statement = seedStatement(session, hand, dealer, seat, serviceCommitment, digest);
  return { statement, signature: sign(secretHex, statement) };
}

// ---- checking a revealed hand in the browser ----------------------------------------------------------------------
const DECK_DOMAIN = PROTOCOL + '/deck';
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

// A revealed transcript checked with nothing but this machine: my seed is the one I made, every seed opens its
// commitment, the service's seed opens its chain link, and the deck those seeds derive is the one dealt to me.
export function checkRevealed(doc, mySeat, mySeedHex, myCards) {
  const s = doc.session.statement;
  if (doc.state !== 'revealed') return 'the transcript is not revealed';
  if (chainStep(s.table, s.session, doc.hand, doc.service.seed) !== doc.service.commitment) return "the service's seed does not open its commitment";
  const seeds = [];
  for (const entry of doc.players) {
    const name = s.players[entry.seat].name;
    if (seedCommitment(s.table, s.session, doc.hand, name, hexToBytes(entry.seed)) !== entry.statement.seed_commitment) return `seat ${entry.seat}'s seed does not open its commitment`;
    seeds.push([name, hexToBytes(entry.seed)]);
  }
  if (doc.players[mySeat].seed !== mySeedHex) return 'my seed is not the one in the transcript';
  const fields = [DECK_DOMAIN, s.table, s.session, u64(doc.hand), s.deck, hexToBytes(doc.service.seed), u64(seeds.length)];
  for (const [name, seed] of seeds) fields.push(name, seed);
  const order = deriveOrder(frame(...fields), s.deck).map(cardAscii);
  if (order.join(' ') !== doc.deck_order.join(' ')) return 'the published deck is not the one the seeds derive';
  const dealt = doc.deal.hands[mySeat].slice().sort().join(' ');
  if (myCards && dealt !== myCards.map(cardAscii).sort().join(' ')) return 'the cards I was dealt are not the deal the seeds derive';
  return null;
}
