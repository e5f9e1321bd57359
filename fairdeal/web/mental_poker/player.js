// One seat of a mentally dealt hand in JavaScript (fairdeal/protocols/mental_poker/player.py): it holds its own
// key share, shuffle secrets and discard nonce, signs every message it sends with its identity seed, and checks
// every message it is shown (signature, hand, chain link, then the hand's state machine) before answering; what
// fails is returned as the error a Python seat raises, so that the seat refuses with the same check named.
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const { MentalPokerError } = G;
  const V = () => root.FairdealVerifier;
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const ENVELOPE_ONLY = ['step', 'player', 'prev', 'witness'];

  // A signed message that fails a check (SignedMessageError): ``party`` is whom it is evidence against.
  class SignedMessageError extends Error {
    constructor(detail, party, check) {
      super(`${party}: ${check}: ${detail}`);
      Object.assign(this, { detail, party, check });
    }
  }

  // What Python's str() of the error says: a refusal's reason.
  function reasonOf(error) {
    if (error instanceof SignedMessageError) return error.message;
    const where = [['player', error.player], ['step', error.step]].filter(([, v]) => v !== null && v !== '');
    return where.length ? `${where.map(([k, v]) => `${k} ${v}`).join(', ')}: ${error.detail}` : error.detail;
  }

  // An error as the bridge carries it; anything that is not a protocol finding stays a crash.
  function errorJson(error) {
    if (error instanceof SignedMessageError) {
      return { kind: 'signed', detail: error.detail, party: error.party, check: error.check, reason: reasonOf(error) };
    }
    if (error instanceof MentalPokerError) {
      return { kind: 'mental-poker', detail: error.detail, player: error.player, step: error.step, reason: reasonOf(error) };
    }
    throw error;
  }

  // Proofs of one's own messages are not checked again (HandState.apply(check_proofs=False)): they go to a sink.
  const SINK = { add() {}, addAll() {}, isIdentity: () => true };

  const RANKS = { A: 'A', K: 'K', Q: 'Q', J: 'J', 10: '10', X: '10', T: '10', 9: '9', 8: '8', 7: '7', Т: 'A', К: 'K', Д: 'Q', В: 'J' };
  const SUITS = { '♠': 'S', '♣': 'C', '♦': 'D', '♥': 'H', '♤': 'S', '♧': 'C', '♢': 'D', '♡': 'H', S: 'S', C: 'C', D: 'D', H: 'H', П: 'S', Т: 'C', Б: 'D', Ч: 'H' };

  // A card of a record in its ASCII form (cards.parse_card's notations).
  function readCard(text) {
    if (typeof text !== 'string') throw new TypeError(`a card is a string, not ${JSON.stringify(text)}`);
    const token = text.trim();
    const rank = RANKS[token.slice(0, -1).toUpperCase()], suit = SUITS[token.slice(-1).toUpperCase()];
    if (token.length < 2 || rank === undefined || suit === undefined) throw new TypeError(`cannot read card '${text}'`);
    return rank + suit;
  }

  class Player {
    // ``roster``: the session's signed roster document; ``players``: the dealt seats' names in hand order;
    // ``seed``: this seat's 32-byte Ed25519 identity seed (hex), which must be the roster's key for ``name``.
    constructor({ roster, hand, attempt, pattern, players, name, seed }) {
      const read = V().readRoster(roster, '$.roster');
      V().checkRosterSignatures(read);
      const seat = read.seats.findIndex((s) => s.name === name);
      if (seat < 0 || !players.includes(name)) throw new MentalPokerError(`'${name}' is not at this table`);
      const seedBytes = G.fromHex(seed);
      if (G.toHex(root.fairdealNoble.ed25519.getPublicKey(seedBytes)) !== read.seats[seat].key) {
        throw new MentalPokerError("the identity key is not the roster's key for this seat", name);
      }
      const bound = V().context(MP.verify.PROTOCOL_V4, read.table, read.session, read.hash, attempt);
      const context = MP.fiatShamir.handContext(G.toHex(bound), hand);
      Object.assign(this, { roster: read, hand, name, seat, seedBytes, secret: null, publicKey: null, discarded: null, cards: new Map() });
      this.where = { table: read.table, session: read.session, roster: read.hash };
      this.setup = MP.hand.tableSetup(context, pattern, players, 4);
      this.state = new MP.hand.HandState(this.setup);
    }

    get head() { return this.state.head; }

    // The v3 form of an envelope shown to this seat (signing.open_message, charged to the relay).
    open(doc) {
      let envelope;
      try {
        envelope = V().parseEnvelope(doc, 'message');
      } catch (error) {
        if (error instanceof V().Refused) throw new SignedMessageError(error.message, 'relay', 'message form');
        throw error;
      }
      const seat = this.roster.seats[envelope.sender];
      const who = envelope.sender === 'service' ? 'service' : seat ? `player ${seat.name}` : `seat ${envelope.sender}`;
      const refuse = (check, what) => new SignedMessageError(`${envelope.kind} from ${who} (hand ${envelope.hand}): ${what}`, 'relay', check);
      if (seat === undefined) throw refuse('sender', 'the sender is not on the roster');
      const prefix = V().context('fairdeal-signed/4', this.roster.table, this.roster.session, envelope.hand, this.roster.hash);
      if (!V().verifySignature(seat.key, G.concat([prefix, envelope.content]), envelope.signature)) {
        throw refuse('signature', `the signature does not verify under ${who}'s identity key for this table, session and roster: not their statement`);
      }
      if (envelope.hand !== this.hand) throw refuse('context', `signed for hand ${envelope.hand}, presented in hand ${this.hand}: a replay`);
      if (envelope.prev !== this.state.head) throw refuse('chain link', 'it does not follow the message before it (dropped, reordered or spliced)');
      const message = { ...envelope.body, step: envelope.kind, player: seat.name, prev: envelope.prev };
      if (envelope.kind === 'abandon') {
        if (typeof envelope.body.player !== 'string') throw new MentalPokerError('an abandon names the absent player', seat.name, 'abandon');
        Object.assign(message, { player: envelope.body.player, witness: seat.name });
      } else if (has(envelope.body, 'player')) {
        throw new MentalPokerError('only an abandon names a player in its body', seat.name, envelope.kind);
      }
      return { message, digest: envelope.digest };
    }

    // Check a message before acting on it; throws what the Python seat raises.
    receive(doc) {
      const { message, digest } = this.open(doc);
      this.state.apply(message, digest);
    }

    send(fields) {
      const message = { ...fields, prev: this.state.head };
      const body = Object.fromEntries(Object.entries(message).filter(([k]) => !ENVELOPE_ONLY.includes(k)));
      if (message.step === 'abandon') body.player = message.player;
      const sealed = MP.party.seal(this.seedBytes, this.where, this.hand, this.seat, message.step, body, message.prev);
      this.state.batch = SINK;
      try {
        this.state.apply(message, sealed.digest);
      } finally {
        this.state.batch = null;
      }
      return sealed.envelope;
    }

    sign(kind, body, prev, hand = this.hand) {
      return MP.party.seal(this.seedBytes, this.where, hand, this.seat, kind, body, prev).envelope;
    }

    // ---- the opening ----------------------------------------------------------------------------------------
    keys() {
      const share = MP.party.keyShare(this.setup.context, this.name);
      [this.secret, this.publicKey] = [share.secret, share.publicKey];
      return this.send({ step: 'keys', player: this.name, ...share.message });
    }

    shuffle(permutation = null) {
      const made = MP.party.shuffle(this.setup.context, this.name, this.state.jointKey, this.state.deck, permutation);
      return this.send({ step: 'shuffle', player: this.name, ...made });
    }

    deal() { return this.sendShares('deal', this.setup.dealPositions(this.name)); }

    // ---- the talon ------------------------------------------------------------------------------------------
    talonFields(step, talon) {
      const fields = this.shareFields(step, this.setup.talonRows[talon]);
      return this.setup.talonRows.length > 1 ? { ...fields, talon } : fields;
    }
    openTalon(talon = 0) { return this.send(this.talonFields('talon', talon)); }
    take(recipient, talon = 0) { return this.send({ ...this.talonFields('take', talon), to: recipient }); }
    turn() { return this.sendShares('turn', [this.setup.talonRows[0][this.state.turned]]); }
    openDummy() { return this.sendShares('dummy', this.setup.dummyPositions); }

    // ---- play -----------------------------------------------------------------------------------------------
    ownShare(position) { return G.encodePoint(G.multiply(this.secret, G.decodePoint(this.state.deck[position][0]))); }

    cardAt(position) {
      if (!this.cards.has(position)) {
        const known = this.state.shares.get(position) || new Map();
        const shares = [...known.values()];
        if (!known.has(this.name)) shares.push(this.ownShare(position));
        if (shares.length !== this.setup.players.length) {
          throw new MentalPokerError(`position ${position} has ${shares.length} of ${this.setup.players.length} shares`);
        }
        const c2 = this.state.deck[position][1];
        this.cards.set(position, MP.hand.cardOfPoint(G.sum([1n, ...shares.map(() => G.ORDER - 1n)], [c2, ...shares])));
      }
      return this.cards.get(position);
    }

    // This seat's cards in the order received; only this seat can compute them.
    handCards() { return this.setup.handPositions(this.name).map((p) => this.cardAt(p)); }

    // Raw shares of the cards nobody holds (talons, the dummy): for a simulation's engine host only
    // (source.py's stated shortcut), never a position of a player's hand.
    hiddenShares() {
      const hidden = [...this.setup.talonRows.flat(), ...this.setup.dummyPositions, ...this.asidePositions()];
      return Object.fromEntries(hidden.map((p) => [p, this.ownShare(p)]));
    }

    asidePositions() {
      const p = root.FAIRDEAL_REGISTRY.patterns[this.setup.patternName];
      if (p.aside_hand === null || p.aside_hand === undefined) return [];
      return p.targets.flatMap((target, position) => (target === p.aside_hand ? [position] : []));
    }

    positionOf(card, positions) {
      const position = positions.find((p) => this.cardAt(p) === card);
      if (position === undefined) throw new MentalPokerError(`${card} is not among my cards`, this.name);
      return position;
    }

    heldPositions(taking = false) {
      const played = new Set(this.state.plays.map(([, p]) => p));
      const discarded = new Set(this.discarded ? this.discarded[0] : []);
      const talon = taking ? this.state.waitingTalons(this.name).flatMap((t) => this.setup.talonRows[t]) : [];
      return [...this.state.holdings(this.name), ...talon].filter((p) => !played.has(p) && !discarded.has(p));
    }

    // Commit to the discarded cards' positions without showing them.
    discard(cards) {
      const positions = this.heldPositions(true);
      const chosen = cards.map((card) => this.positionOf(card, positions)).sort((a, b) => a - b);
      const nonce = new Uint8Array(32);
      root.crypto.getRandomValues(nonce);
      this.discarded = [chosen, G.toHex(nonce)];
      const commitment = MP.hand.discardCommitment(this.setup.context, this.name, chosen, this.discarded[1]);
      return this.send({ step: 'discard', player: this.name, commitment });
    }

    // Sign my game decision (``{action}``, or ``{announce}`` on a hand without aces): the game judges it.
    decide(decision) { return this.send({ step: MP.hand.DECIDE, player: this.name, ...decision }); }

    // Prove ``card`` comes from my holdings: its position and my decryption share of it.
    play(card) {
      const position = this.positionOf(card, this.heldPositions());
      const made = this.makeShares([position]);
      return this.send({ step: 'play', player: this.name, position, share: made.shares[0].share, proof: made.proof });
    }

    // Lay my hand face up: my shares of every card I hold now (not the dummy's, not my discard).
    openHand() {
      const dummy = new Set(this.setup.dummyPositions);
      return this.sendShares('open', this.heldPositions().filter((p) => !dummy.has(p)));
    }

    // ---- the end --------------------------------------------------------------------------------------------
    reveal() {
      const missing = [];
      for (let p = 0; p < this.setup.size; p++) if (!(this.state.shares.get(p) || new Map()).has(this.name)) missing.push(p);
      return this.sendShares('reveal', missing);
    }

    openDiscard() {
      if (this.discarded === null) throw new MentalPokerError('has committed no discard', this.name, 'discard-open');
      const [positions, nonce] = this.discarded;
      return this.send({ step: 'discard-open', player: this.name, positions, nonce });
    }

    // Why this seat will not sign ``record`` (its cards are not the ones the messages proved), or null.
    recordRefusal(record) {
      let recorded;
      try {
        recorded = (has(record, 'tricks') ? record.tricks : []).flatMap((trick) => trick.cards.map(readCard));
      } catch (error) {
        return `the record's tricks do not read: ${error.message}`;
      }
      const proven = this.state.plays.map(([, , card]) => card);
      if (recorded.join() !== proven.join() || recorded.length !== proven.length) {
        return "the record's cards are not the cards the messages proved, in the order played";
      }
      return null;
    }

    // The signed statement of the hand's record after its last message (statements.sign_record).
    signRecord(record) {
      const refusal = this.recordRefusal(record);
      return signRecord(this, record, this.state.head, refusal);
    }

    // Sign that ``absent`` did not send ``step`` after the request this seat last received (v4).
    witnessAbandon(absent, step) { return this.send({ step: 'abandon', player: absent, at: step, witness: this.name }); }

    // A signed refusal of the message shown (v4): ``error`` is what receive threw.
    refuse(shown, error) {
      let refused = '';  // a message that does not parse has no digest to name
      try { refused = V().parseEnvelope(shown, 'message').digest; } catch { /* refused stays empty */ }
      const reason = typeof error.reason === 'string' ? error.reason : reasonOf(error);
      const body = { check: error.check || error.step || 'message', reason, refused };
      return this.sign('refuse', body, this.state.head);
    }

    shareFields(step, positions) {
      const made = this.makeShares([...positions].sort((a, b) => a - b));
      return { step, player: this.name, shares: made.shares, proof: made.proof };
    }
    sendShares(step, positions) { return this.send(this.shareFields(step, positions)); }
    makeShares(positions) {
      return MP.party.decryptionShares(this.setup.context, this.name, this.secret, this.publicKey, this.state.deck, positions);
    }
  }

  // A seat's identity outside any hand: it signs the record of a hand it sat out, and the session's settlement.
  class Signer {
    constructor({ roster, name, seed }) {
      const read = V().readRoster(roster, '$.roster');
      const seat = read.seats.findIndex((s) => s.name === name);
      const seedBytes = G.fromHex(seed);
      if (seat < 0 || G.toHex(root.fairdealNoble.ed25519.getPublicKey(seedBytes)) !== read.seats[seat].key) {
        throw new MentalPokerError("the identity key is not the roster's key for this seat", name);
      }
      Object.assign(this, { roster: read, name, seat, seedBytes, where: { table: read.table, session: read.session, roster: read.hash } });
      // hand -> the record statement this seat signed: the hands it will settle.
      this.records = new Map();
    }
    sign(kind, body, prev, hand) { return MP.party.seal(this.seedBytes, this.where, hand, this.seat, kind, body, prev).envelope; }

    // The session's closing statement (statements.sign_settlement): ``proposal`` maps each seat to its amount as
    // an exact fraction's text and, after an end, names the stopped hand and who is charged; it is signed as put,
    // or with ``agrees: false`` and the ``objection`` (settlementObjection) when there is one.
    signSettlement(proposal, objection = null) {
      const body = { hands: proposal.hands, last: proposal.last, settlement: proposal.settlement };
      if (proposal.end !== null && proposal.end !== undefined) body.end = { hand: proposal.end.hand, charged: [...proposal.end.charged] };
      if (objection !== null) Object.assign(body, { agrees: false, reason: objection });
      return this.sign('settlement', body, proposal.last, 0);
    }
  }

  // Python's repr() and str() of a JSON value, and the end a stopped hand proves: the verifier's (verify.js).
  const pyRepr = (value) => MP.verify.pyRepr(value);
  const pyStr = (value) => (typeof value === 'string' ? value : pyRepr(value));
  const provedEnd = (doc) => MP.verify.provedEnd(doc);

  const AMOUNT = /^(-?)(\d+)(?:\/([1-9]\d*))?$/;
  const gcd = (a, b) => (b === 0n ? a : gcd(b, a % b));

  // Why the settlement ``proposal`` is not the one this seat can stand behind (settling.settlement_objection);
  // null when it is. ``complete`` are the complete hands' transcripts, ``stopped`` the one an end voided (or
  // null), as the host shows them: each complete one must carry the record statement this seat signed
  // (``signer.records``), and the stopped one must follow them. The hand count, the last transcript's hash, the
  // end and, by the page's engine (``replayer``), the amounts its own sheet settles to are checked exactly as a
  // Python seat checks them, with the same reasons. Without the engine the seat checks only that the amounts
  // name the roster's seats, each once, as exact fractions summing to zero.
  function settlementObjection(signer, proposal, complete, stopped, replayer = null) {
    const mine = [...signer.records.keys()].sort((a, b) => a - b);
    const shown = complete.map((doc) => (isObject(doc) ? doc.hand : null));
    const carries = (doc) => Array.isArray(doc.statements) && doc.statements.some((s) => V().encodeText(s) === V().encodeText(signer.records.get(doc.hand)));
    if (V().encodeText(shown) !== V().encodeText(mine) || !complete.every(carries)) {
      return `the hands shown me (${shown.join(', ')}) are not the ${mine.length} whose records I signed`;
    }
    const last = stopped !== null ? stopped : (complete.length ? complete[complete.length - 1] : null);
    if (proposal.hands !== complete.length || proposal.last !== (last !== null ? V().sha256Hex(V().encode(last)) : '')) {
      return `the settlement closes ${pyStr(proposal.hands)} hand(s) elsewhere; I signed ${complete.length}`;
    }
    if (stopped !== null && stopped.hand !== complete.length + 1) {
      return `the hand that ended the evening is hand ${pyStr(stopped.hand)}, not the next after the ${complete.length} I signed`;
    }
    const proved = stopped === null ? null : provedEnd(stopped);
    if (stopped !== null && proved === null) return 'the hand that ended the evening does not verify: it proves no one at fault';
    if (V().encodeText(proposal.end === undefined ? null : proposal.end) !== V().encodeText(proved)) {
      return `the end is ${pyRepr(proposal.end)}; the stopped hand proves ${pyRepr(proved)}`;
    }
    const names = signer.roster.seats.map((seat) => seat.name);
    const roster = signer.roster;
    const evening = replayer === null ? null
      : replayer.open({ system: roster.system, convention: roster.convention, pulya: roster.pulya, seats: names });
    if (evening !== null && typeof evening !== 'string') {
      const settlement = has(proposal, 'settlement') ? proposal.settlement : null;
      return evening.amountsObjection(complete, proved === null ? [] : proved.charged, settlement);
    }
    const amounts = isObject(proposal.settlement) ? proposal.settlement : {};
    const named = Object.keys(amounts);
    if (named.length !== names.length || !names.every((name) => has(amounts, name))) {
      return `the settlement names ${pyRepr(named)}, not the roster's ${pyRepr(names)}`;
    }
    let p = 0n, q = 1n;
    for (const name of names) {
      const match = typeof amounts[name] === 'string' ? AMOUNT.exec(amounts[name]) : null;
      if (match === null) return `the amount of ${name} is ${pyRepr(amounts[name])}, not an exact fraction`;
      const a = BigInt(match[1] + match[2]), b = BigInt(match[3] || '1');
      [p, q] = [p * b + a * q, q * b];
      const d = gcd(p < 0n ? -p : p, q);
      [p, q] = [p / d, q / d];
    }
    if (p !== 0n) return `the amounts sum to ${p}${q === 1n ? '' : `/${q}`}, not zero`;
    return null;
  }

  function signRecord(signer, record, head, refusal, hand = signer.hand) {
    const body = { record: V().sha256Hex(V().encode(V().signedRecord(record))), agrees: refusal === null };
    if (refusal !== null) body.reason = refusal;
    return signer.sign('record', body, head, hand);
  }

  MP.player = { Player, Signer, SignedMessageError, errorJson, reasonOf, readCard, signRecord, provedEnd, settlementObjection, pyRepr };
})(globalThis);
