// The wire form of mental-poker messages (fairdeal/protocols/mental_poker/messages.py): shape checks only, every
// error naming the claimed sender and step; points stay lowercase hex, scalars become BigInt.
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const { MentalPokerError } = G;

  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isInt = (v) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
  const repr = (name) => `'${name}'`;
  // Python's sorted() of field names, printed as a list.
  const pyList = (names) => '[' + [...names].sort().map(repr).join(', ') + ']';
  const KINDS = { int: isInt, list: Array.isArray, str: (v) => typeof v === 'string', dict: isObject };

  function sender(message) {
    if (!isObject(message)) throw new MentalPokerError('a message must be a JSON object');
    const { player, step } = message;
    if (typeof player !== 'string' || typeof step !== 'string') {
      throw new MentalPokerError('a message must name its player and step as strings');
    }
    return [player, step];
  }

  const SHARES = ['shares', 'proof'];
  const FIELDS = {
    keys: ['public', 'c', 's'], shuffle: ['deck', 'proof'], deal: SHARES, talon: [...SHARES, 'talon'],
    take: [...SHARES, 'to', 'talon'], turn: SHARES, dummy: SHARES, reveal: SHARES, open: SHARES, play: ['position', 'share', 'proof'],
    discard: ['commitment'], 'discard-open': ['positions', 'nonce'], abandon: ['at', 'witness'],
    decide: ['action', 'announce'],  // exactly one of them
  };
  const ENVELOPE = ['step', 'player', 'prev'];
  const PROOF_FIELDS = ['u', 'chain', 't', 't_chain', 'k', 'k_chain', 'k_open'];

  function checkFields(message) {
    const [player, step] = sender(message);
    const allowed = [...ENVELOPE, ...(Object.prototype.hasOwnProperty.call(FIELDS, step) ? FIELDS[step] : [])];
    const extra = Object.keys(message).filter((k) => !allowed.includes(k));
    if (extra.length) throw new MentalPokerError(`fields ${pyList(extra)} are not part of a ${step} message`, player, step);
  }

  class Reader {
    constructor(message) { [this.player, this.step] = sender(message); this.message = message; }
    fail(text) { return new MentalPokerError(text, this.player, this.step); }
    exact(source, allowed, what) {
      if (!isObject(source) || Object.keys(source).some((k) => !allowed.includes(k))) {
        throw this.fail(`${what} may hold only ${pyList(allowed)}`);
      }
    }
    field(source, name, kind) {
      const value = isObject(source) && Object.prototype.hasOwnProperty.call(source, name) ? source[name] : null;
      if (!KINDS[kind](value)) throw this.fail(`field ${repr(name)} is missing or not a ${kind}`);
      return value;
    }
    raw32(value, what) {
      if (typeof value !== 'string' || value.length !== 64 || value !== value.toLowerCase()) {
        throw this.fail(`${what} must be 64 lowercase hex digits`);
      }
      if (!/^[0-9a-f]*$/.test(value)) throw this.fail(`${what} is not hex`);
      return value;
    }
    point(value, what) { return this.raw32(value, what); }
    scalar(value, what) {
      const hex = this.raw32(value, what);
      try {
        return G.decodeScalar(G.fromHex(hex));
      } catch (error) {
        throw this.fail(`${what}: ${error.detail}`);
      }
    }
    points(source, name) { return this.field(source, name, 'list').map((v, i) => this.point(v, `${name}[${i}]`)); }
    scalars(source, name) { return this.field(source, name, 'list').map((v, i) => this.scalar(v, `${name}[${i}]`)); }
    equalLogs(source, positions) {
      const body = Object.prototype.hasOwnProperty.call(source, 'proof') ? source.proof : null;
      if (!positions.length) {
        if (body !== null) throw this.fail("no shares are listed, so 'proof' must be null");
        return null;
      }
      this.exact(body, ['a', 'b', 's'], 'proof');
      return { a: this.point(body.a, 'proof.a'), b: this.point(body.b, 'proof.b'), s: this.scalar(body.s, 'proof.s') };
    }
  }

  const get = (source, name) => (Object.prototype.hasOwnProperty.call(source, name) ? source[name] : null);

  function readKey(message) {
    const r = new Reader(message);
    return { player: r.player, public: r.point(get(message, 'public'), 'public'),
      proof: { challenge: r.scalar(get(message, 'c'), 'c'), response: r.scalar(get(message, 's'), 's') } };
  }

  function readShuffle(message) {
    const r = new Reader(message);
    const deck = r.field(message, 'deck', 'list').map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw r.fail(`deck[${i}] must be a pair [c1, c2]`);
      return [r.point(pair[0], `deck[${i}].c1`), r.point(pair[1], `deck[${i}].c2`)];
    });
    const body = r.field(message, 'proof', 'dict');
    r.exact(body, PROOF_FIELDS, 'proof');
    const k = r.scalars(body, 'k');
    if (k.length !== 4) throw r.fail('proof.k must hold the four responses k1..k4');
    const proof = { u: r.points(body, 'u'), chain: r.points(body, 'chain'), t: r.points(body, 't'),
      t_chain: r.points(body, 't_chain'), k, k_chain: r.scalars(body, 'k_chain'), k_open: r.scalars(body, 'k_open') };
    return [deck, proof];
  }

  function readShares(message) {
    const r = new Reader(message);
    const positions = [], shares = [];
    for (const entry of r.field(message, 'shares', 'list')) {
      r.exact(entry, ['position', 'share'], 'a share entry');
      const position = r.field(entry, 'position', 'int');
      if (positions.includes(position)) throw r.fail(`two shares for position ${position}`);
      positions.push(position);
      shares.push(r.point(get(entry, 'share'), `share for position ${position}`));
    }
    return { player: r.player, positions, shares, proof: r.equalLogs(message, positions) };
  }

  function readSingleShare(message) {
    const r = new Reader(message);
    const position = r.field(message, 'position', 'int');
    const share = r.point(get(message, 'share'), 'share');
    return { player: r.player, positions: [position], shares: [share], proof: r.equalLogs(message, [position]) };
  }

  const readDiscard = (message) => new Reader(message).raw32(get(message, 'commitment'), 'commitment');

  function readDiscardOpen(message) {
    const r = new Reader(message);
    const positions = r.field(message, 'positions', 'list');
    if (!positions.every(isInt)) throw r.fail("field 'positions' must list deck positions (integers)");
    return [positions, r.raw32(get(message, 'nonce'), 'nonce')];
  }

  const readAbandon = (message) => new Reader(message).field(message, 'at', 'str');
  // A decide message's decision, its shape checked: what it means is the game's to judge.
  function readDecision(message) {
    const r = new Reader(message);
    const fields = FIELDS.decide.filter((k) => Object.prototype.hasOwnProperty.call(message, k));
    if (fields.length !== 1) throw r.fail("a decision holds exactly one of 'action' and 'announce'");
    const value = message[fields[0]];
    if (fields[0] === 'action') r.field(value, 'kind', 'str');
    else if (value !== null) {
      r.exact(value, ['no_aces'], 'announce');
      if (typeof value.no_aces !== 'boolean') throw r.fail("announce must be null or {'no_aces': true or false}");
    }
    return { [fields[0]]: value };
  }

  const readRecipient = (message) => new Reader(message).field(message, 'to', 'str');

  function readTalonIndex(message, talons) {
    const r = new Reader(message);
    if (talons <= 1) {
      if (Object.prototype.hasOwnProperty.call(message, 'talon')) throw r.fail("this deal has one talon; 'talon' must be absent");
      return 0;
    }
    const index = r.field(message, 'talon', 'int');
    if (!(index >= 0 && index < talons)) throw r.fail(`talon ${index} is not one of the deal's ${talons} talons`);
    return index;
  }

  MP.messages = { sender, checkFields, readKey, readShuffle, readShares, readSingleShare, readDiscard,
    readDiscardOpen, readAbandon, readDecision, readRecipient, readTalonIndex, pyList };
})(globalThis);
