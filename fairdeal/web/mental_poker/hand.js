// One mentally dealt hand as a public state machine (fairdeal/protocols/mental_poker/protocol.py): who may send
// what when, every proof, each failure naming the sender and the step; verifyHand folds every proof into one
// batch and, if anything fails, checks the messages again one at a time so the error names the first failing one.
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const M = MP.messages;
  const { MentalPokerError } = G;
  const { framed } = MP.fiatShamir;
  const utf8 = new TextEncoder();

  const OPENING = ['keys', 'shuffle', 'deal'];
  const ROUNDS = ['talon', 'take', 'turn', 'dummy', 'reveal'];
  const SINGLE = ['play', 'discard', 'open', 'discard-open'];
  const DECIDE = 'decide';  // v4: a seat's signed game decision, where no step is fixed between the deal and the reveal
  const STEPS = [...OPENING, ...ROUNDS, ...SINGLE, 'abandon', DECIDE];
  // What the game, not the protocol, may leave due after the deal: an abandon there names whom the game awaits.
  const GAME_CALLED = ['talon', 'take', 'turn', 'dummy', 'reveal', 'play', 'discard', 'open', DECIDE];
  const pyTuple = (step, player) => `('${step}', '${player}')`;
  const pyInts = (list) => '[' + list.join(', ') + ']';
  const sortedNumbers = (list) => [...list].sort((a, b) => a - b);

  // The card each decrypted point stands for: hash-to-group of card/<ASCII> (elgamal.card_point), looked up by
  // encoding (a ristretto255 encoding is canonical: one point, one encoding).
  let cardPoints = null;
  function cardOfPoint(point) {
    if (cardPoints === null) {
      cardPoints = new Map();
      for (const deck of Object.values(root.FAIRDEAL_REGISTRY.decks)) {
        for (const card of deck) if (!cardPoints.has(G.hashToPoint('card/' + card))) cardPoints.set(G.hashToPoint('card/' + card), card);
      }
    }
    const card = cardPoints.get(G.encodePoint(point));
    if (card === undefined) throw new MentalPokerError('a decrypted point is not a card');
    return card;
  }

  // The table of one hand (TableSetup) from the registry's pattern: players[i] receives player hand i.
  function tableSetup(context, patternName, players, version) {
    const p = root.FAIRDEAL_REGISTRY.patterns[patternName];
    const byReceiver = Array.from({ length: p.hands + p.talons }, () => []);
    p.targets.forEach((target, position) => byReceiver[target].push(position));
    const playerHands = [...Array(p.hands).keys()].filter((h) => h !== p.dummy_hand && h !== p.aside_hand);
    if (new Set(players).size !== players.length) {
      throw new MentalPokerError(`player names must be distinct: (${players.map((n) => `'${n}'`).join(', ')})`);
    }
    if (players.length !== playerHands.length) {
      throw new MentalPokerError(`pattern ${patternName} deals to ${playerHands.length} players, got ${players.length}`);
    }
    const handPositions = (player) => byReceiver[playerHands[players.indexOf(player)]];
    return {
      context, players, version, patternName, deck: root.FAIRDEAL_REGISTRY.decks[p.deck], size: p.targets.length,
      handPositions,
      dealPositions: (player) => sortedNumbers(players.filter((o) => o !== player).flatMap(handPositions)),
      talonRows: byReceiver.slice(p.hands),
      dummyPositions: p.dummy_hand === null ? [] : byReceiver[p.dummy_hand],
      schedule: OPENING.flatMap((step) => players.map((player) => [step, player])),
      genesis() {
        const V = root.FairdealVerifier;
        const data = G.concat([framed(G.concat([G.DOMAIN, utf8.encode('chain')])), framed(context.encoded),
          framed(V.encode([...players])), framed(utf8.encode(patternName))]);
        return V.sha256Hex(data);
      },
    };
  }

  function discardCommitment(context, player, positions, nonceHex) {
    const encoded = new Uint8Array(2 * positions.length);
    sortedNumbers(positions).forEach((p, i) => { encoded[2 * i] = (p >> 8) & 0xff; encoded[2 * i + 1] = p & 0xff; });
    const data = G.concat([framed(G.concat([G.DOMAIN, utf8.encode('discard')])), framed(context.encoded),
      framed(utf8.encode(player)), framed(encoded), framed(G.fromHex(nonceHex))]);
    return G.toHex(root.fairdealNoble.sha512(data).subarray(0, 32));
  }

  function shareLabel(positions) {
    const out = new Uint8Array(2 * positions.length);
    positions.forEach((p, i) => { out[2 * i] = (p >> 8) & 0xff; out[2 * i + 1] = p & 0xff; });
    return out;
  }

  class HandState {
    constructor(setup, batch = null) {
      Object.assign(this, {
        setup, batch, messages: [], head: setup.genesis(), keyShares: new Map(), jointKey: null, deck: [],
        pending: [], shares: new Map(), round: null, pendingTalon: null, done: [], turned: 0, opened: new Set(),
        taken: new Map(), holders: new Map(), commitments: new Map(), discards: new Map(), laidOpen: new Map(), plays: [], abandoned: null,
        decisions: [], awaitedByGame: false,
      });
    }

    get expected() {
      const opening = this.setup.schedule;
      if (this.messages.length < opening.length) return opening[this.messages.length];
      if (this.round !== null) return [this.round[0], this.round[1][0]];
      if (this.revealed) {
        const unopened = [...this.commitments.keys()].filter((p) => !this.discards.has(p));
        return unopened.length ? ['discard-open', unopened[0]] : null;
      }
      return null;
    }
    get dealt() { return this.messages.length >= this.setup.schedule.length; }
    get revealed() { return this.done.includes('reveal'); }
    get finished() { return this.abandoned !== null || (this.revealed && this.discards.size === this.commitments.size); }
    get dummyOpen() { return this.done.includes('dummy'); }
    talonClosed(t) { return !this.opened.has(t) && !this.taken.has(t) && (t !== 0 || !this.turned); }
    waitingTalons(player) {
      return this.setup.talonRows.map((_, t) => t)
        .filter((t) => !this.holders.has(t) && (this.taken.get(t) === player || this.opened.has(t)));
    }

    apply(message, digest) {
      const [player, step] = M.sender(message);
      if (!STEPS.includes(step)) throw new MentalPokerError(`unknown step '${step}'`, player, step);
      if (!this.setup.players.includes(player)) throw new MentalPokerError('is not at this table', player, step);
      if (this.finished) throw new MentalPokerError('the hand is over; no message may follow', player, step);
      M.checkFields(message);
      if (step === 'abandon') {
        this.applyAbandon(player, message);
      } else {
        this.checkTurn(player, step, message);
        this[STEP_METHODS[step]](player, message);
        this.advanceRound();
      }
      if (message.prev !== this.head) {
        if (this.jointKey !== null) MP.shuffle.verifyShuffles(this.setup.context, this.jointKey, this.pending);
        throw new MentalPokerError("'prev' is not the hash of the message before it", player, 'chain');
      }
      this.messages.push(message);
      this.head = digest;
    }

    checkTurn(player, step, message) {
      const expected = this.expected;
      if (expected !== null) {
        if (step !== expected[0] || player !== expected[1]) {
          throw new MentalPokerError(`message out of turn; expected ${pyTuple(...expected)}`, player, step);
        }
        return;
      }
      if (OPENING.includes(step)) throw new MentalPokerError('the deal is over', player, step);
      if (ROUNDS.includes(step)) {
        this.round = [step, this.roundPlayers(player, step, message)];
        if (this.round[1][0] !== player) throw new MentalPokerError(`the ${step} round starts with ${this.round[1][0]}`, player, step);
      } else if (this.revealed && step !== 'discard-open') {
        throw new MentalPokerError('every share is out; only the discard may still be opened', player, step);
      } else if (step === DECIDE && this.setup.version < 4) {
        throw new MentalPokerError('decisions are signed messages from version 4 on', player, step);
      }
    }

    roundPlayers(player, step, message) {
      const players = [...this.setup.players];
      const rows = this.setup.talonRows;
      if (step === 'reveal' && !this.revealed) return players;
      const talonLeft = rows.length ? this.turned < rows[0].length : false;
      if (step === 'turn' && !this.opened.has(0) && !this.taken.has(0) && talonLeft) return players;
      const talon = step === 'talon' || step === 'take' ? M.readTalonIndex(message, rows.length) : 0;
      const closed = this.talonClosed(talon);
      if (step === 'talon' && closed && !this.plays.length) { this.pendingTalon = [talon, null]; return players; }
      if (step === 'dummy' && this.setup.dummyPositions.length && !this.dummyOpen && !this.plays.length) return players;
      if (step === 'take' && closed && !this.plays.length) {
        const recipient = M.readRecipient(message);
        if (!players.includes(recipient)) {
          throw new MentalPokerError(`the talon goes to '${recipient}', who is not at this table`, player, step);
        }
        this.pendingTalon = [talon, recipient];
        return players.filter((p) => p !== recipient);
      }
      throw new MentalPokerError('this step is not allowed at this point of the hand', player, step);
    }

    advanceRound() {
      if (this.round === null) return;
      const [step, left] = this.round;
      left.shift();
      if (left.length) return;
      this.round = null;
      this.done.push(step);
      if (step === 'turn') this.turned += 1;
      else if (step === 'talon') this.opened.add(this.pendingTalon[0]);
      else if (step === 'take') this.taken.set(this.pendingTalon[0], this.pendingTalon[1]);
    }

    applyKeys(player, message) {
      const share = M.readKey(message);
      G.blame(share.player, 'keys', () => {
        G.validate([share.public], 'key share');
        MP.proofs.verifyPossession(this.setup.context, share.player, share.public, share.proof);
      });
      this.keyShares.set(player, share);
      if (this.keyShares.size === this.setup.players.length) {
        const shares = this.setup.players.map((p) => this.keyShares.get(p));
        const joint = G.pointSum(shares.map((s) => s.public));
        if (joint === G.IDENTITY) throw new MentalPokerError('the key shares cancel to the identity', shares[shares.length - 1].player, 'keys');
        this.jointKey = joint;
        const joined = this.setup.deck.map((card) => [G.BASE, G.multiMult([1n, 1n], [G.hashToPoint('card/' + card), joint])]);
        this.deck = joined;
      }
    }

    applyShuffle(player, message) {
      const [deck, proof] = M.readShuffle(message);
      const claim = { player, deckIn: this.deck, deckOut: deck, proof };
      G.blame(player, 'shuffle', () => {
        if (this.batch !== null) {
          MP.shuffle.addShuffleEquations(this.setup.context, claim, this.jointKey, this.batch, false);
        } else {
          G.validate(deck.flatMap(([c1, c2]) => [c1, c2]), 'output deck point');
          this.pending.push(claim);
        }
      });
      this.deck = deck;
      if (this.messages.length + 1 === 2 * this.setup.players.length) {
        MP.shuffle.verifyShuffles(this.setup.context, this.jointKey, this.pending);
        this.pending = [];
      }
    }

    applyDeal(player, message) { this.applyShares(player, message, this.setup.dealPositions(player)); }

    roundTalon(player, step, message) {
      const [talon, recipient] = this.pendingTalon;
      if (M.readTalonIndex(message, this.setup.talonRows.length) !== talon) {
        throw new MentalPokerError(`the round is about talon ${talon}`, player, step);
      }
      if (step === 'take' && M.readRecipient(message) !== recipient) {
        throw new MentalPokerError(`the talon goes to ${recipient}, not ${M.readRecipient(message)}`, player, step);
      }
      return this.setup.talonRows[talon];
    }

    applyTalon(player, message) { this.applyShares(player, message, this.roundTalon(player, 'talon', message)); }
    applyTake(player, message) { this.applyShares(player, message, this.roundTalon(player, 'take', message)); }
    applyDummy(player, message) { this.applyShares(player, message, this.setup.dummyPositions); }
    applyTurn(player, message) { this.applyShares(player, message, [this.setup.talonRows[0][this.turned]]); }

    applyDiscard(player, message) {
      if (this.commitments.has(player) || this.plays.length) {
        throw new MentalPokerError('a discard is committed once, before the first card is played', player, 'discard');
      }
      const talons = this.waitingTalons(player);
      if (!talons.length) throw new MentalPokerError('only the player who took the talon discards', player, 'discard');
      this.commitments.set(player, M.readDiscard(message));
      for (const t of talons) this.holders.set(t, player);
    }

    holdings(player) {
      const talons = this.setup.talonRows.flatMap((row, t) => (this.holders.get(t) === player ? row : []));
      return [...this.setup.handPositions(player), ...talons, ...(this.dummyOpen ? this.setup.dummyPositions : [])];
    }

    applyPlay(player, message) {
      const shares = M.readSingleShare(message);
      const position = shares.positions[0];
      if (!this.holdings(player).includes(position)) throw new MentalPokerError(`position ${position} was not dealt to this player`, player, 'play');
      if (this.plays.some(([, p]) => p === position)) throw new MentalPokerError(`position ${position} was already played`, player, 'play');
      const others = this.setup.players.filter((p) => p !== player);
      const known = this.shares.get(position) || new Map();
      if (others.some((o) => !known.has(o))) throw new MentalPokerError(`position ${position} lacks the other players' shares`, player, 'play');
      this.checkShares(shares, 'play');
      known.set(player, shares.shares[0]);
      this.plays.push([player, position, G.blame(player, 'play', () => this.openPosition(position))]);
    }

    // A hand laid face up: its holder's shares of every card he holds now (not the cards played, not his discard).
    applyOpen(player, message) {
      if (this.laidOpen.has(player)) throw new MentalPokerError('has laid his hand open already', player, 'open');
      const shares = M.readShares(message);
      const talons = this.setup.talonRows.flatMap((row, t) => (this.holders.get(t) === player ? row : []));
      const own = new Set([...this.setup.handPositions(player), ...talons]);
      const played = new Set(this.plays.map(([, p]) => p).filter((p) => own.has(p)));
      const count = this.setup.handPositions(player).length - played.size;
      const positions = new Set(shares.positions);
      const held = [...positions].every((p) => own.has(p) && !played.has(p));
      if (positions.size !== shares.positions.length || !held || positions.size !== count) {
        throw new MentalPokerError(`shares for positions ${pyInts(sortedNumbers(shares.positions))}, not the ${count} unplayed cards of his`, player, 'open');
      }
      this.checkShares(shares, 'decrypt');
      shares.positions.forEach((position, i) => {
        if (!this.shares.has(position)) this.shares.set(position, new Map());
        this.shares.get(position).set(player, shares.shares[i]);
      });
      this.laidOpen.set(player, sortedNumbers(shares.positions));
    }

    applyReveal(player, message) {
      const missing = [];
      for (let p = 0; p < this.setup.size; p++) if (!(this.shares.get(p) || new Map()).has(player)) missing.push(p);
      this.applyShares(player, message, missing);
    }

    applyDiscardOpen(player, message) {
      const commitment = this.commitments.get(player);
      if (commitment === undefined || this.discards.has(player) || !this.revealed) {
        throw new MentalPokerError('opens no discard of his, or not after the reveal', player, 'discard-open');
      }
      const [positions, nonce] = M.readDiscardOpen(message);
      const distinct = new Set(positions).size === positions.length && [1, 2].includes(positions.length);
      if (!distinct || !positions.every((p) => p >= 0 && p < this.setup.size)) {
        throw new MentalPokerError(`a discard is one or two distinct deck positions, not ${pyInts(positions)}`, player, 'discard-open');
      }
      if (discardCommitment(this.setup.context, player, positions.map(Number), nonce) !== commitment) {
        throw new MentalPokerError('the positions and nonce do not open the discard commitment', player, 'discard-open');
      }
      const played = new Set(this.plays.map(([, p]) => p));
      const mine = this.holdings(player);
      if (!positions.every((p) => mine.includes(p)) || positions.some((p) => played.has(p))) {
        throw new MentalPokerError(`positions ${pyInts(positions)} are not two unplayed cards of his`, player, 'discard-open');
      }
      const shown = this.laidOpen.get(player) || [];
      if (positions.some((p) => shown.includes(Number(p)))) {
        throw new MentalPokerError(`positions ${pyInts(positions)} were laid open as cards he held`, player, 'discard-open');
      }
      this.discards.set(player, positions.map(Number));
    }

    applyDecide(player, message) { this.decisions.push([player, M.readDecision(message)]); }

    applyAbandon(player, message) {
      const at = M.readAbandon(message);
      const v4 = this.setup.version >= 4;
      const witness = v4 ? (Object.prototype.hasOwnProperty.call(message, 'witness') ? message.witness : player) : player;
      if (v4 && (!this.setup.players.includes(witness) || witness === player)) {
        throw new MentalPokerError('an abandon is signed by another player of the hand', String(witness), 'abandon');
      }
      const expected = this.expected;
      if (expected !== null && (at !== expected[0] || player !== expected[1])) {
        throw new MentalPokerError(`the hand waits for ${pyTuple(...expected)}, not for ${player} at ${at}`, witness, 'abandon');
      }
      if (!STEPS.includes(at) || at === 'abandon') throw new MentalPokerError(`'${at}' is not a step`, witness, 'abandon');
      if (expected === null && v4 && (!GAME_CALLED.includes(at) || !this.dealt)) {
        throw new MentalPokerError(`the hand waits for nobody's ${at} here`, witness, 'abandon');
      }
      this.abandoned = [player, at];
      this.awaitedByGame = expected === null;
      this.round = null;
    }

    applyShares(player, message, positions) {
      const step = M.sender(message)[1];
      const shares = M.readShares(message);
      const got = sortedNumbers(shares.positions), want = sortedNumbers(positions);
      if (got.join() !== want.join() || got.length !== want.length) {
        throw new MentalPokerError(`shares for positions ${pyInts(got)}, expected ${pyInts(want)}`, player, step);
      }
      this.checkShares(shares, 'decrypt');
      shares.positions.forEach((position, i) => {
        if (!this.shares.has(position)) this.shares.set(position, new Map());
        this.shares.get(position).set(player, shares.shares[i]);
      });
    }

    checkShares(shares, step) {
      if (!shares.positions.length) return;
      const key = this.keyShares.get(shares.player);
      const equations = (out) => MP.proofs.addEqualLogsEquations(this.setup.context, shares.player,
        shareLabel(shares.positions), key.public, shares.positions.map((p) => this.deck[p][0]), shares.shares,
        shares.proof, out);
      G.blame(shares.player, step, () => {
        if (this.batch !== null) { equations(this.batch); return; }
        G.validate(shares.shares, 'decryption share');
        G.validate([shares.proof.a, shares.proof.b], 'proof commitment');
        const combination = new G.Combination();
        equations(combination);
        if (!combination.isIdentity()) throw new MentalPokerError('the equal-logarithms proof of the decryption shares does not verify');
      });
    }

    openPosition(position) {
      const shares = [...(this.shares.get(position) || new Map()).values()];
      if (shares.length !== this.setup.players.length) {
        throw new MentalPokerError(`position ${position} has ${shares.length} of ${this.setup.players.length} shares`);
      }
      const [, c2] = this.deck[position];
      return cardOfPoint(G.sum([1n, ...shares.map(() => G.ORDER - 1n)], [c2, ...shares]));
    }

    order() { return Array.from({ length: this.setup.size }, (_, p) => this.openPosition(p)); }

    // An independent copy: messages and points are immutable and shared, the containers copied.
    snapshot() {
      const copy = Object.assign(Object.create(HandState.prototype), this);
      Object.assign(copy, {
        messages: [...this.messages], done: [...this.done], plays: [...this.plays], pending: [...this.pending],
        keyShares: new Map(this.keyShares), shares: new Map([...this.shares].map(([p, m]) => [p, new Map(m)])),
        round: this.round === null ? null : [this.round[0], [...this.round[1]]], opened: new Set(this.opened),
        taken: new Map(this.taken), holders: new Map(this.holders), commitments: new Map(this.commitments),
        discards: new Map(this.discards), laidOpen: new Map(this.laidOpen), decisions: [...this.decisions],
      });
      return copy;
    }
  }

  // States after each message of hands already verified one at a time, keyed by the chain head (Checkpoints):
  // a variant of a verified hand resumes after its longest verified prefix. Sound because the head after k
  // messages hashes all k messages, and the genesis the table.
  class Checkpoints {
    constructor() { this.states = new Map(); }
    keep(state) { this.states.set(state.head, state.snapshot()); }
    resume(setup, messages, digests) {
      let head = setup.genesis(), best = [new HandState(setup), 0];
      for (let index = 0; index < messages.length; index++) {
        if (messages[index].prev !== head) break;
        head = digests[index];
        if (this.states.has(head)) best = [this.states.get(head).snapshot(), index + 1];
      }
      return best;
    }
  }

  const STEP_METHODS = { keys: 'applyKeys', shuffle: 'applyShuffle', deal: 'applyDeal', talon: 'applyTalon',
    take: 'applyTake', turn: 'applyTurn', dummy: 'applyDummy', reveal: 'applyReveal', play: 'applyPlay',
    discard: 'applyDiscard', open: 'applyOpen', 'discard-open': 'applyDiscardOpen', decide: 'applyDecide' };

  // A hand's messages may stop only where a hand can end (_check_stop).
  function checkStop(state) {
    if (!state.dealt && state.abandoned === null) {
      const expected = state.expected;
      throw new MentalPokerError(`the hand stops after ${state.messages.length} messages, before the deal is complete`,
        null, expected ? expected[0] : null);
    }
    if (state.round !== null) {
      const [step, player] = state.expected;
      throw new MentalPokerError(`the hand stops inside the ${state.round[0]} round`, player, step);
    }
  }

  function verifyFrom(state, messages, digests, partial, start = 0, checkpoints = null) {
    for (let index = start; index < messages.length; index++) {
      state.apply(messages[index], digests[index]);
      if (checkpoints !== null) checkpoints.keep(state);
    }
    if (!partial) checkStop(state);
    if (state.batch !== null && !state.batch.isIdentity()) throw new MentalPokerError('the proofs of the hand do not verify together');
    const complete = state.revealed && state.abandoned === null;
    const talons = [...state.opened].sort((a, b) => a - b);
    return {
      state, jointKey: state.jointKey, deck: state.deck, plays: state.plays, abandoned: state.abandoned,
      talon: talons.length ? talons.flatMap((t) => state.setup.talonRows[t].map((p) => state.openPosition(p))) : null,
      order: complete ? state.order() : null,
      discards: new Map([...state.discards].map(([player, positions]) => [player, positions.map((p) => state.openPosition(p))])),
    };
  }

  // The messages in order (verify_hand): the batch first, then one at a time if anything failed; with
  // ``checkpoints``, one at a time from the longest prefix already verified.
  function verifyHand(setup, messages, digests, partial = false, checkpoints = null) {
    if (checkpoints === null) {
      try {
        return verifyFrom(new HandState(setup, new G.Combination()), messages, digests, partial);
      } catch (error) {
        if (!(error instanceof MentalPokerError)) throw error;
      }
    }
    const [state, start] = checkpoints === null ? [new HandState(setup), 0] : checkpoints.resume(setup, messages, digests);
    return verifyFrom(state, messages, digests, partial, start, checkpoints);
  }

  MP.hand = { OPENING, ROUNDS, STEPS, DECIDE, GAME_CALLED, HandState, Checkpoints, tableSetup, verifyHand, discardCommitment, cardOfPoint };
})(globalThis);
