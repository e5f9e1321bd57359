// This browser's seat at a mental-poker table (fairdeal-mental-poker/4). Its key share and discard nonce are made
// here and kept in IndexedDB, never sent; every seat's message is checked here (player.js) before this seat
// answers; its own cards are opened here from its own shares. The service relays what it cannot read: its view
// holds only the cards the rules have opened, so the view is completed here into the shape the table renders.

import * as P from './protocol.js';

const SCRIPTS = ['/static/vendor/noble-verifier.js', '/static/vendor/mental-poker.js'];
const PROTOCOL = 'fairdeal-mental-poker/4';
const ACE = 7; // a card's rank within its suit: code % 8
// The steps a seat's party answers by itself: no choice in them, only its secrets (or, asked to witness, its word
// that the seat the hand waited for did not answer).
const AUTOMATIC = {
  abandon: (p, due) => p.witnessAbandon(due.absent, due.at),
  keys: (p) => p.keys(), shuffle: (p) => p.shuffle(), deal: (p) => p.deal(), turn: (p) => p.turn(),
  dummy: (p) => p.openDummy(), open: (p) => p.openHand(), reveal: (p) => p.reveal(),
  'discard-open': (p) => p.openDiscard(), talon: (p, due) => p.openTalon(due.talon), take: (p, due) => p.take(due.to, due.talon),
};

let loading = null;
// The classic scripts of the seat (the @noble and libsodium bundle, then the verifier and player.js), once.
export function loadSeatScripts() {
  loading ??= SCRIPTS.reduce((done, src) => done.then(() => new Promise((resolve, reject) => {
    const el = document.createElement('script');
    Object.assign(el, { src, onload: resolve, onerror: () => reject(new Error(`${src} did not load`)) });
    document.head.append(el);
  })), Promise.resolve()).then(() => globalThis.fairdealReady).then(() => {
    if (globalThis.fairdealSodiumFailure) throw new Error(`this browser cannot deal: ${globalThis.fairdealSodiumFailure}`);
  });
  return loading;
}

const MP = () => globalThis.FairdealMP;
const deckCards = () => globalThis.FAIRDEAL_REGISTRY.decks.piquet32; // every card, in code order
const codeOf = (card) => deckCards().indexOf(card);
const cardOf = (code) => deckCards()[code];

// The cards of ``held`` the trick admits under the view's ``own`` rule (the engine's legal_cards).
export function ownLegalCards(held, rule) {
  const { led, trump, beat } = rule;
  if (led === null) return held;
  let allowed = held.filter((c) => c >> 3 === led);
  if (!allowed.length) allowed = held.filter((c) => trump !== null && c >> 3 === trump);
  if (!allowed.length) allowed = held;
  if (beat === null) return allowed;
  const beats = (c) => (c >> 3 === beat >> 3 ? c > beat : trump !== null && c >> 3 === trump);
  const heading = allowed.filter(beats);
  return heading.length ? heading : allowed;
}

function combinations(items, k) {
  if (k === 0) return [[]];
  return items.flatMap((item, i) => combinations(items.slice(i + 1), k - 1).map((rest) => [item, ...rest]));
}

export class MentalPokerSeat {
  // ``rows()``: the relayed rows this socket has received, in order; ``store``: {get, set} over IndexedDB;
  // ``send(frame)``: a frame to the table's socket.
  constructor({ tableId, me, rows, store, send }) {
    Object.assign(this, { tableId, me, rows, store, send });
    this.fed = 0; this.player = null; this.playerDeal = null; this.signerOf = null; this.answered = new Set();
  }

  name(view) { return view.roster.find((r) => r.seat === view.you)?.name; }
  // A deal of a hand: a hand walked away from in its opening is dealt again as a new attempt, with a new party.
  secretsKey(deal) { return `mp:${this.tableId}:${deal}`; }

  // Begin my party for the view's deal and show it the rows it has not seen (from a reload: mine too).
  async follow(view) {
    const setup = view.setup;
    if (!setup) return;
    const deal = `${setup.hand}:${setup.attempt}`;
    if (this.playerDeal !== deal) {
      this.playerDeal = deal; this.player = null; this.fed = 0;
      if (setup.players.includes(this.name(view))) {
        this.player = new (MP().player.Player)({ roster: view.signed_roster, hand: setup.hand, attempt: setup.attempt,
          pattern: setup.pattern, players: setup.players, name: this.name(view), seed: this.me.secret });
        this.restored = false;
      }
    }
    if (!this.player) { this.fed = Math.max(this.fed, this.rows().length); return; }
    for (const row of this.rows().slice(this.fed)) {
      if (`${row.hand}:${row.attempt}` !== deal || row.type !== 'mp-signed') continue;
      // A row of mine comes back after my party applied it when sending; from a reload it is new to the party.
      if (row.seat === view.you && row.body.prev !== this.player.head) continue;
      try {
        this.player.receive(row.body);
      } catch (error) {  // the relay showed a message the service should have refused: this seat answers no more
        this.answered.add('*');
        throw new Error(MP().player.errorJson(error).reason, { cause: error });
      }
    }
    this.fed = Math.max(this.fed, this.rows().length);
    if (!this.restored) await this.restore();
  }

  // A reloaded page's party gets back its key share and discard from IndexedDB.
  async restore() {
    this.restored = true;
    const kept = await this.store.get(this.secretsKey(this.playerDeal));
    if (!kept) return;
    if (kept.secret && this.player.secret === null) [this.player.secret, this.player.publicKey] = [BigInt('0x' + kept.secret), kept.publicKey];
    if (kept.discarded && this.player.discarded === null) this.player.discarded = kept.discarded;
  }

  async keep() {
    const p = this.player;
    await this.store.set(this.secretsKey(this.playerDeal), { secret: p.secret === null ? null : p.secret.toString(16), publicKey: p.publicKey, discarded: p.discarded });
  }

  // The protocol's own steps, the statements and the roster signature: answered as soon as they are due.
  async step(view) {
    if (view.you === null) return;
    if (view.stage === 'roster' && view.waiting_for.includes(view.you)) return this.once('roster', () => this.signRoster(view));
    if (!['play', 'record', 'settle'].includes(view.stage)) return;
    await this.follow(view);
    if (this.rows().length !== view.relayed) return;
    const due = view.due, mine = due && due.player === this.name(view);
    if (view.stage === 'play' && mine) {
      const key = `${view.hand}:${view.relayed}:${due.step}`;
      if (AUTOMATIC[due.step]) return this.once(key, () => this.automatic(view, due));
      if (due.step === 'play' && due.card !== null) return this.once(key, () => this.play(due.card));
      if (due.step === 'announce' && this.heldCodes().some((c) => (c & 7) === ACE)) return this.once(key, () => this.decide({ announce: null }));
    }
    if (view.stage === 'record' && view.waiting_for[0] === view.you) return this.once(`record:${view.hand}`, () => this.signRecord(view));
    if (view.stage === 'settle' && view.waiting_for[0] === view.you) return this.once('settle', () => this.signSettlement(view));
  }

  async once(key, answer) {
    if (this.answered.has(key) || this.answered.has('*')) return;
    this.answered.add(key);
    await answer();
  }

  async automatic(view, due) {
    const envelope = AUTOMATIC[due.step](this.player, due);
    if (due.step === 'keys') await this.keep();
    this.send({ type: 'mp-signed', envelope });
  }

  // Sign the roster only when my seat, name and key are on it, for this protocol, under the service's signature.
  signRoster(view) {
    const doc = view.signed_roster, body = doc.roster, mine = body.seats[view.you];
    if (body.protocol !== PROTOCOL || mine.key !== this.me.key || mine.name !== this.name(view)) {
      throw new Error(`the roster does not seat me (${this.name(view)}) at seat ${view.you} for ${PROTOCOL}`);
    }
    const message = P.rosterMessage(body);
    if (!P.verifyBytes(body.service, message, doc.signatures.service)) throw new Error("the service's signature of the roster does not verify");
    this.send({ type: 'roster-sign', signature: P.signBytes(this.me.secret, message) });
  }

  // My cards, once the deal has given me every other seat's share of them.
  heldCodes(taking = false) {
    const p = this.player;
    if (!p || p.secret === null || !p.state.dealt) return [];
    return p.heldPositions(taking).map((position) => codeOf(p.cardAt(position)));
  }

  play(code) { this.send({ type: 'mp-signed', envelope: this.player.play(cardOf(code)) }); }

  // A game decision, signed into the hand's chain: the service relays it and cannot make one in my name.
  decide(decision) { this.send({ type: 'mp-signed', envelope: this.player.decide(decision) }); }

  async discard(codes) {
    const envelope = this.player.discard(codes.map(cardOf));
    await this.keep();  // the nonce is kept before the commitment leaves
    this.send({ type: 'mp-signed', envelope });
  }

  // A choice the person made (a decision, a card, a discard, the announcement).
  async choose(action) {
    if (action.kind === 'play') return this.play(action.card);
    if (action.kind === 'discard') return this.discard(action.cards);
    if (action.kind === 'announce') return this.decide({ announce: { no_aces: action.no_aces } });
    return this.decide({ action });
  }

  signer(view) {
    if (!this.signerOf) this.signerOf = new (MP().player.Signer)({ roster: view.signed_roster, name: this.name(view), seed: this.me.secret });
    return this.signerOf;
  }

  async signRecord(view) {
    const refusal = this.player ? this.player.recordRefusal(view.record) : null;
    const signer = this.player || this.signer(view);
    const envelope = MP().player.signRecord(signer, view.record, view.head, refusal, view.hand);
    await this.store.set(`check:${this.tableId}:${view.hand}`, refusal || '');  // the history's ✓ or ✗
    await this.store.set(`mprecord:${this.tableId}:${view.hand}`, envelope);
    this.send({ type: 'statement', envelope });
  }

  // The settlement, signed as put or with my objection: the hands shown must be the ones whose records I signed,
  // and an end must be the one the stopped hand proves.
  async signSettlement(view) {
    const signer = this.signer(view);
    for (const row of view.history) {
      const signed = await this.store.get(`mprecord:${this.tableId}:${row.hand}`);
      if (signed) signer.records.set(row.hand, signed);
    }
    const docs = await (await fetch(`/api/tables/${this.tableId}/transcripts`)).json();
    const hands = docs.filter((doc) => doc.format !== 'fairdeal-settlement');
    const complete = hands.filter((doc) => doc.state === 'complete');
    const stopped = hands.find((doc) => doc.state !== 'complete') || null;
    const objection = MP().player.settlementObjection(signer, view.proposal, complete, stopped);
    this.send({ type: 'statement', envelope: signer.signSettlement(view.proposal, objection) });
  }

  // The view completed for the table's rendering: my cards, the hidden counts, and my choices now.
  present(view) {
    const g = view.game;
    const out = { ...view, protocol: { roster: view.signed_roster }, to_move: g ? g.to_move : null,
      dealer: g ? g.dealer : view.setup ? view.setup.dealer : null };
    if (!g) return out;
    const due = view.due, mine = due && due.player === this.name(view) && this.rows().length === view.relayed;
    const taking = mine && due.step === 'discard';
    const elsewhere = new Set(Object.entries(g.open_hands).filter(([s]) => Number(s) !== view.you).flatMap(([, cards]) => cards));
    const hand = this.heldCodes(taking).filter((c) => !elsewhere.has(c)).sort((a, b) => a - b);
    const hidden = Object.fromEntries(g.cards_held.map((n, s) => [String(s), n]).filter(([s]) => !(s in g.open_hands)));
    const talon = Object.values(g.talons_shown).flat();
    out.game = { ...g, hand, hidden, talon_seen: talon, legal: mine ? this.choices(view, hand) : [] };
    return out;
  }

  choices(view, hand) {
    const g = view.game, due = view.due;
    if (due.step === 'act') return g.legal;
    if (due.step === 'announce') return [true, false].map((noAces) => ({ kind: 'announce', no_aces: noAces }));
    if (due.step === 'discard') return combinations(hand, g.own.discard).map((cards) => ({ kind: 'discard', cards }));
    if (due.step !== 'play' || due.card !== null) return [];
    if (g.legal.length) return g.legal;  // a hand open to all that I play for the table
    if (!g.own) return [];
    return ownLegalCards(hand, g.own).map((card) => ({ kind: 'play', seat: view.you, card }));
  }
}
