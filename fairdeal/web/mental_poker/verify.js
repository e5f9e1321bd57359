// The mental-poker v4 transcript verifier (fairdeal/protocols/mental_poker/verify.py): the document's shape, the
// roster, earlier abandoned attempts, every signed envelope and the hand's state machine, a refusal's cause, the
// outcome (state, published deal, the record's signed statements) and the chain between a session's hands. Each
// finding is {party, check, detail}, the same as `fairdeal verify` reports. Needs FairdealVerifier (canonical
// JSON, roster, Ed25519) and FAIRDEAL_REGISTRY.
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const { MentalPokerError } = G;
  const V = () => root.FairdealVerifier;
  const TRANSCRIPT = 'transcript', RECORD = 'record';
  const PROTOCOL_V4 = 'fairdeal-mental-poker/4', PROTOCOL_V3 = 'fairdeal-mental-poker/3';
  const SESSION_HANDS = 1000000; // fairdeal/protocols/derive.py: MAX_SESSION_HANDS, what a TableSpec holds
  const STATES = ['complete', 'abandoned', 'refused'];
  const UNPINNED = 'identities are unpinned: the keys come from the transcripts themselves, so this proves only that some holders '
    + 'of those keys played (one program could have played every seat); pin them with --roster, --key or --me';
  const FIELDS = [['table', 'str'], ['session', 'str'], ['system', 'str'], ['deck', 'str'], ['deal_pattern', 'str'],
    ['players', 'list'], ['hand', 'int'], ['dealer', 'int'], ['messages', 'list'], ['state', 'str']];
  const V4_FIELDS = [['roster', 'dict'], ['attempt', 'int'], ['aborts', 'list']];
  const DEAL_RULES = ['players', 'table.deck', 'table.deal_pattern', 'table.hand_players', 'table.dummy',
    'table.patterns_by_players'];
  const PLAY_ABANDON = 'an abandon during play must name the player whose step the game awaits: without its engine the page '
    + 'does not follow the game to check whose step was due; fairdeal verify does';
  const RECORD_STEPS = "the records are not compared with the messages step by step (the events, the talon cards turned, the "
    + "discards, the abort penalty): the page's engine did not start; fairdeal verify does";
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isInt = (v) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
  const KINDS = { str: (v) => typeof v === 'string', list: Array.isArray, int: isInt, dict: isObject };
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

  class Finding extends Error {
    constructor(party, check, detail) { super(detail); this.party = party; this.check = check; this.detail = detail; }
  }

  // A MentalPokerError's finding: the player named, or the transcript (the detail as `_bare` leaves it).
  function fromMentalPoker(error) {
    if (error.player !== null) return new Finding(`player ${error.player}`, error.step || 'messages', error.detail);
    return new Finding(TRANSCRIPT, error.step || 'messages', error.step ? `step ${error.step}: ${error.detail}` : error.detail);
  }

  function asFinding(error) {
    if (error instanceof Finding) return error;
    if (error instanceof MentalPokerError) return fromMentalPoker(error);
    if (error instanceof V().CanonicalError) return new Finding(TRANSCRIPT, 'messages', error.message);
    throw error;
  }

  // ---- shape, roster, table -----------------------------------------------------------------------------------
  function checkShape(doc) {
    const bad = (detail) => new Finding(TRANSCRIPT, 'transcript shape', detail);
    for (const [name, kind] of FIELDS) {
      if (!has(doc, name) || !KINDS[kind](doc[name])) throw bad(`field '${name}' is missing or not a ${kind}`);
    }
    const states = doc.protocol === PROTOCOL_V4 ? STATES : STATES.slice(0, 2);
    if (!states.includes(doc.state)) throw bad(`state '${doc.state}' is none of ${states.join(', ')}`);
    if (doc.protocol !== PROTOCOL_V4) {
      throw bad(`protocol ${pyRepr(doc.protocol)} is not the ${PROTOCOL_V4} this verifier reads (${PROTOCOL_V3} is read by fairdeal verify)`);
    }
    for (const [name, kind] of V4_FIELDS) {
      if (!has(doc, name) || !KINDS[kind](doc[name])) throw bad(`field '${name}' is missing or not a ${kind}`);
    }
    if (doc.format !== 'fairdeal-transcript' || doc.version !== 1) throw bad('not a fairdeal-transcript version 1 document');
  }

  // stated_convention: what the transcript states of its convention, read (as Python reads it) before the roster.
  function conventionOf(doc) {
    const bad = (detail) => new Finding(TRANSCRIPT, 'table', detail);
    const overrides = has(doc, 'convention') ? doc.convention : {};
    if (!isObject(overrides)) throw bad('the statement names no system, or its house rules are not an object');
    const pulya = has(doc, 'pulya') ? doc.pulya : null;
    if (pulya !== null && !(isInt(pulya) && pulya >= 1)) {
      throw bad(`the statement's pulya ${pyRepr(pulya)} is not a positive whole number`);
    }
    const systems = root.FAIRDEAL_REGISTRY.systems, name = doc.system.trim().toLowerCase();
    if (!has(systems, name)) {
      throw bad(`unknown system ${V().oneLine(pyRepr(doc.system), 40)}; known systems: ${Object.keys(systems).sort().join(', ')}`);
    }
    const problem = V().houseRulesProblem(overrides);
    if (problem !== null) throw bad(problem);
    const system = systems[name], n = doc.players.length;
    const pattern = system.patterns[String(n)] || system.deal_pattern;
    const dealRule = Object.keys(overrides).find((path) => DEAL_RULES.includes(path));
    if (dealRule !== undefined) return { system, name, pattern, dealRule }; // its deck and pattern are not the registry's
    for (const [fact, value] of [['deck', system.deck], ['deal_pattern', pattern]]) {
      if (has(doc, fact) && doc[fact] !== value) {
        throw bad(`the statement's ${fact} ${pyRepr(doc[fact])} is not '${value}', the ${fact} of ${name}`);
      }
    }
    return { system, name, pattern, dealRule };
  }

  // The deal pattern the hand is dealt by, after the roster (as TableSpec reads the seating).
  function tableOf(doc, stated = conventionOf(doc)) {
    const bad = (detail) => new Finding(TRANSCRIPT, 'table', detail);
    const { system, name, pattern, dealRule } = stated, n = doc.players.length;
    if (dealRule !== undefined) throw bad(`the house rule ${dealRule} changes the deal, and this verifier does not apply it: use fairdeal verify`);
    if (!system.players.includes(n)) throw bad(`cannot set the hand up: convention ${pyRepr(name)} is played by ${system.players.join(', ')} players, not ${n}`);
    return pattern;
  }

  function checkRoster(doc, pins) {
    let roster;
    try {
      roster = V().readRoster(doc.roster, '$.roster');
      V().checkRosterSignatures(roster);
    } catch (error) {
      if (error instanceof V().Refused) throw new Finding(TRANSCRIPT, 'roster', error.message);
      throw error;
    }
    const same = (a, b) => V().encodeText(a) === V().encodeText(b);
    const stated = [roster.table, roster.session, roster.seats.map((s) => s.name), roster.body.protocol];
    if (!same(stated, [doc.table, doc.session, doc.players, PROTOCOL_V4])) {
      throw new Finding(TRANSCRIPT, 'roster', 'the roster is for another table, session, protocol or seating than the hand');
    }
    const header = { system: roster.system, convention: roster.convention, pulya: roster.pulya };
    const convention = has(doc, 'convention') ? doc.convention : {};
    if (!same(header, { system: doc.system, convention, pulya: has(doc, 'pulya') ? doc.pulya : null })) {
      throw new Finding(TRANSCRIPT, 'roster', 'the roster signs another convention than the hand states');
    }
    const problems = pinProblems(pins, roster);
    if (problems.length) throw problems;
    return roster;
  }

  // Each way the roster departs from the identities pinned ({roster, keys: [[who, key]]}) (pin_problems).
  function pinProblems(pins, roster) {
    const found = [];
    if (pins.roster && pins.roster.hash !== roster.hash) {
      found.push(new Finding(TRANSCRIPT, 'roster pin', "the transcript's roster is not the pinned roster"));
    }
    for (const [who, key] of pins.keys) {
      const seats = roster.seats.filter((seat, i) => who === String(i) || who === seat.name);
      const held = who === 'service' ? roster.service : seats.length ? seats[0].key : null;
      if (held === null) found.push(new Finding(TRANSCRIPT, 'identity pin', `'${who}' is not a seat, a name or 'service' of this roster`));
      else if (held !== key) found.push(new Finding(TRANSCRIPT, 'identity pin', `${who} holds key ${held.slice(0, 16)}…, pinned ${key.slice(0, 16)}…`));
    }
    return found;
  }

  // The dealt seats' names in hand order: the pattern's player hands from the dealer's left.
  function handSetup(doc, roster, patternName, attempt) {
    if (doc.hand > SESSION_HANDS) throw new Finding(TRANSCRIPT, 'table', `cannot set the hand up: a session holds 1..${SESSION_HANDS} hands, got ${doc.hand}`);
    const p = root.FAIRDEAL_REGISTRY.patterns[patternName];
    const n = doc.players.length;
    const playerHands = [...Array(p.hands).keys()].filter((h) => h !== p.dummy_hand && h !== p.aside_hand);
    if (!(doc.dealer >= 0 && doc.dealer < n)) throw new Finding(TRANSCRIPT, 'table', `cannot set the hand up: dealer seat ${doc.dealer} is outside 0..${n - 1}`);
    if (!(doc.hand >= 0)) throw new Finding(TRANSCRIPT, 'table', `cannot set the hand up: hand ${doc.hand} is not a hand number (0 to 2**64 - 1)`);
    const names = playerHands.map((_, i) => doc.players[(Number(doc.dealer) + 1 + i) % n]);
    const bound = V().context(PROTOCOL_V4, roster.table, roster.session, roster.hash, attempt);
    const context = MP.fiatShamir.handContext(G.toHex(bound), Number(doc.hand));
    return MP.hand.tableSetup(context, patternName, names, 4);
  }

  // ---- envelopes ----------------------------------------------------------------------------------------------
  function describe(sender, roster) {
    if (sender === 'service') return 'service';
    return roster.seats[sender] ? `player ${roster.seats[sender].name}` : `seat ${sender}`;
  }

  // ``formParty``: whom a malformed envelope is charged to (check_record_statements leaves it the relay's).
  function openChecked(doc, roster, hand, prev, where, kind = null, formParty = TRANSCRIPT) {
    let envelope;
    try {
      envelope = V().parseEnvelope(doc, where);
    } catch (error) {
      if (error instanceof V().Refused) throw new Finding(formParty, 'message form', error.message);
      throw error;
    }
    const who = describe(envelope.sender, roster);
    const refuse = (check, what) => new Finding(TRANSCRIPT, check, `${envelope.kind} from ${who} (hand ${envelope.hand}): ${what}`);
    const seat = envelope.sender === 'service' ? undefined : roster.seats[envelope.sender];
    if (seat === undefined) throw refuse('sender', 'the sender is not on the roster');
    const signedBytes = G.concat([V().context('fairdeal-signed/4', roster.table, roster.session, envelope.hand, roster.hash), envelope.content]);
    if (!V().verifySignature(seat.key, signedBytes, envelope.signature)) {
      throw refuse('signature', `the signature does not verify under ${who}'s identity key for this table, session and roster: not their statement`);
    }
    if (envelope.hand !== hand) throw refuse('context', `signed for hand ${envelope.hand}, presented in hand ${hand}: a replay`);
    if (kind !== null && envelope.kind !== kind) throw refuse('kind', `expected ${kind}`);
    if (prev !== null && envelope.prev !== prev) {
      throw refuse('chain link', 'it does not follow the message before it (dropped, reordered or spliced)');
    }
    return envelope;
  }

  // The v3 form of a signed envelope (signing.open_message).
  function openMessage(doc, roster, hand, prev, where) {
    // signing.open_message names the place only of an object (anything else is read as a bare 'message').
    const envelope = openChecked(doc, roster, hand, prev, isObject(doc) ? where : 'message');
    const signer = roster.seats[envelope.sender].name;
    const message = { ...envelope.body, step: envelope.kind, player: signer, prev: envelope.prev };
    if (envelope.kind === 'abandon') {
      if (typeof envelope.body.player !== 'string') throw new MentalPokerError('an abandon names the absent player', signer, 'abandon');
      Object.assign(message, { player: envelope.body.player, witness: signer });
    } else if (has(envelope.body, 'player')) {
      throw new MentalPokerError('only an abandon names a player in its body', signer, envelope.kind);
    }
    return { message, digest: envelope.digest };
  }

  // The messages through the state machine; an envelope that does not open is reported after the signed
  // messages before it are checked, so a sender who re-signed his own lie is still named (_first_fault).
  function verifyMessages(setup, roster, envelopes, where, partial = false, checkpoints = null) {
    let head = setup.genesis();
    const messages = [], digests = [];
    for (let index = 0; index < envelopes.length; index++) {
      let opened;
      try {
        opened = openMessage(envelopes[index], roster, setup.context.hand, head, `${where}[${index}]`);
      } catch (error) {
        const fault = asFinding(error);
        const [state, start] = checkpoints === null ? [new MP.hand.HandState(setup), 0] : checkpoints.resume(setup, messages, digests);
        try {
          for (let i = start; i < messages.length; i++) state.apply(messages[i], digests[i]);
        } catch (inner) {
          throw asFinding(inner);
        }
        throw fault;
      }
      messages.push(opened.message);
      digests.push(opened.digest);
      head = opened.digest;
    }
    try {
      return MP.hand.verifyHand(setup, messages, digests, partial, checkpoints);
    } catch (error) {
      throw asFinding(error);
    }
  }

  // ---- the parts of a document --------------------------------------------------------------------------------
  function checkAborts(c, roster, patternName) {
    const doc = c.doc;
    if (doc.attempt !== doc.aborts.length + 1 || doc.attempt < 1) {
      throw new Finding(TRANSCRIPT, 'abort', `attempt ${doc.attempt} must follow ${doc.aborts.length} abandoned attempt(s)`);
    }
    doc.aborts.forEach((abort, i) => {
      const number = i + 1;
      if (!isObject(abort) || abort.attempt !== number || !Array.isArray(abort.messages)) {
        throw new Finding(TRANSCRIPT, 'abort', `aborts[${i}] is not attempt ${number}'s messages`);
      }
      const verified = verifyMessages(handSetup(doc, roster, patternName, number), roster, abort.messages, `aborts[${i}].messages`);
      if (verified.abandoned === null) throw new Finding(TRANSCRIPT, 'abort', `attempt ${number} is not abandoned, yet the hand was dealt again`);
      const [player, step] = verified.abandoned;
      c.absent.push(player);
      c.notes.push(`attempt ${number}: player ${player} walked away at step ${step}; the hand was dealt again`);
    });
  }

  function checkRefusal(c, roster, setup, verified) {
    const filed = c.doc.refusal;
    if (!isObject(filed) || Object.keys(filed).sort().join() !== 'shown,statement') {
      throw new Finding(TRANSCRIPT, 'refusal', 'a refused hand files {shown, statement}: the refused message and the refusal');
    }
    let refusal;
    try {
      refusal = openChecked(filed.statement, roster, Number(c.doc.hand), verified.state.head, 'refusal.statement', 'refuse');
    } catch (error) {
      const f = asFinding(error);
      throw new Finding(f.party, 'refusal', f.detail);
    }
    const refuser = roster.seats[refusal.sender].name;
    const reason = refusal.body.reason;
    let shown = '';  // a filed message that does not parse has no digest to match
    try { shown = V().parseEnvelope(filed.shown, 'refusal.shown').digest; } catch { /* shown stays empty */ }
    if (refusal.body.refused !== shown) throw new Finding(TRANSCRIPT, 'refusal', `the filed message is not the one player ${refuser} refused`);
    try {
      verifyMessages(setup, roster, [...c.doc.messages, filed.shown], 'messages', true);
    } catch (error) {
      c.findings.push(asFinding(error));
      c.notes.push(`player ${refuser} refused the faulty message and signed why: ${reason}`);
      return;
    }
    throw new Finding(`player ${refuser}`, 'refusal', `refused a message that verifies (${reason})`);
  }

  function recordStatements(c, roster, head) {
    const doc = c.doc;
    if (!Array.isArray(doc.statements)) {
      c.findings.push(new Finding(TRANSCRIPT, 'record statement', "'statements' must list the players' signed statements"));
      return;
    }
    const digest = V().sha256Hex(V().encode(V().signedRecord(doc.record)));
    const signers = new Map();
    doc.statements.forEach((statement, index) => {
      let envelope;
      try {
        envelope = openChecked(statement, roster, Number(doc.hand), head, `statements[${index}]`, 'record', 'relay');
      } catch (error) {
        const f = asFinding(error);
        c.findings.push(new Finding(f.party, 'record statement', f.detail));
        return;
      }
      if (signers.has(envelope.sender)) c.findings.push(new Finding(TRANSCRIPT, 'record statement', `two statements from seat ${envelope.sender}`));
      signers.set(envelope.sender, envelope.body);
    });
    roster.seats.forEach((seat, index) => {
      const body = signers.get(index);
      if (body === undefined) c.findings.push(new Finding(TRANSCRIPT, 'record statement', `no signed statement of the record from player ${seat.name}`));
      else if (body.record !== digest) c.findings.push(new Finding(TRANSCRIPT, 'record statement', `player ${seat.name} signed another record than this one`));
      else if (body.agrees !== true) c.findings.push(new Finding(RECORD, 'record statement', `player ${seat.name} refuses the record: ${body.reason}`));
    });
  }

  function checkOutcome(c, roster, patternName, verified, replayer) {
    const doc = c.doc;
    if (verified.abandoned !== null) {
      const [player, step] = verified.abandoned;
      if (doc.state !== 'abandoned') c.findings.push(new Finding(TRANSCRIPT, 'state', 'the messages end with an abandonment, the transcript says complete'));
      if (verified.state.awaitedByGame) checkAbandonedPlay(c, verified, player, step, replayer);
      c.notes.push(`abandoned: player ${player} stopped answering at step ${step}`);
      return;
    }
    if (doc.state !== 'complete' || verified.order === null || !verified.state.finished) {
      c.findings.push(new Finding(TRANSCRIPT, 'state', 'the messages stop before every share is revealed and the discard opened'));
      return;
    }
    const deal = V().seatDeal(verified.order, patternName, Number(doc.dealer), doc.players.length);
    if (!has(doc, 'deal') || V().encodeText(doc.deal) !== V().encodeText(deal)) {
      c.findings.push(new Finding(TRANSCRIPT, 'deal', 'the published deal is not the one the messages decrypt to'));
    }
    if (has(doc, 'record')) {
      checkRecordSteps(c, verified, replayer);
      recordStatements(c, roster, verified.state.head);
    }
  }

  // The session as its document states it, for the page's engine (``Evening``); ``seats`` by name.
  const stated = (doc, seats) => ({ system: doc.system, convention: doc.convention ?? {}, pulya: doc.pulya ?? null, seats });

  // The hand's evening in the page's engine (one per stated table and engine: its convention is rebuilt once),
  // or null without one.
  const evenings = new WeakMap();
  function engineFor(c, replayer) {
    if (replayer === null) return null;
    if (!evenings.has(replayer)) evenings.set(replayer, new Map());
    const table = stated(c.doc, c.doc.players), key = V().encodeText(table), known = evenings.get(replayer);
    if (!known.has(key)) known.set(key, replayer.open(table));
    const evening = known.get(key);
    return typeof evening === 'string' ? null : evening; // a convention that cannot be rebuilt failed the shape check
  }

  // _check_record_events and _check_penalty: the record against the steps the messages prove, judged by the
  // Python (events.py) in the page's engine, so the findings are worded as verify words them.
  function checkRecordSteps(c, verified, replayer) {
    const evening = engineFor(c, replayer);
    if (evening === null) return; // verifyTranscripts says so once
    const rows = verified.state.setup.talonRows;
    const turned = (rows.length ? rows[0] : []).slice(0, verified.state.turned).map((p) => verified.order[p]);
    const facts = { record: c.doc.record, proven: provenEvents(verified), turned,
      discards: Object.fromEntries(verified.discards), decided: verified.state.decisions, absent: c.absent };
    for (const [party, check, detail] of evening.handSteps(facts)) c.findings.push(new Finding(party, check, detail));
  }

  // _check_abandoned_play: an abandon during play names the player whose card the record's replay awaits.
  function checkAbandonedPlay(c, verified, player, step, replayer) {
    const evening = engineFor(c, replayer);
    if (evening === null) {
      if (replayer === null) c.caveats.push(PLAY_ABANDON);
      return;
    }
    const messages = verified.state.messages;
    const witness = String(messages[messages.length - 1].witness ?? 'None');
    let found;
    if (!has(c.doc, 'record') && has(c.doc, 'start')) {
      found = evening.abandonedLive({ dealt: verified.state.setup.players, dealer: c.doc.dealer, hand: c.doc.hand,
        start: c.doc.start, facts: publicFacts(verified), player, at: step, witness });
    } else {
      found = evening.abandonedPlay({ record: has(c.doc, 'record') ? c.doc.record : null, player, witness,
        done: provenEvents(verified).filter((event) => event[0] !== 'abandon').length });
    }
    for (const [party, check, detail] of found) c.findings.push(new Finding(party, check, detail));
  }

  // verify.public_facts: what the messages after the deal showed everyone, as the host read them (Fact.from_json reads them).
  function publicFacts(verified) {
    const state = verified.state, setup = state.setup;
    const plays = verified.plays[Symbol.iterator]();
    const facts = [];
    let left = 0, turned = 0;
    const fact = (step, player, extra = {}) => ({ step, player, cards: [], talon: 0, to: null, decision: null, round_done: false, ...extra });
    for (const message of state.messages.slice(setup.schedule.length)) {
      const { player, step } = message;
      if (MP.hand.ROUNDS.includes(step)) {
        left = (left || setup.players.length - (step === 'take' ? 1 : 0)) - 1;
        const talon = has(message, 'talon') ? message.talon : 0, to = has(message, 'to') ? message.to : null;
        let positions = [];
        if (left === 0 && step === 'talon') positions = setup.talonRows[talon];
        else if (left === 0 && step === 'turn') { positions = setup.talonRows[0].slice(turned, turned + 1); turned += 1; }
        else if (left === 0 && step === 'dummy') positions = setup.dummyPositions;
        facts.push(fact(step, player, { cards: positions.map((p) => state.openPosition(p)), talon, to, round_done: left === 0 }));
      } else if (step === 'play') {
        facts.push(fact(step, player, { cards: [plays.next().value[2]] }));
      } else if (step === MP.hand.DECIDE) {
        facts.push(fact(step, player, { decision: MP.messages.readDecision(message) }));
      } else if (step === 'open') {
        facts.push(fact(step, player, { cards: state.laidOpen.get(player).map((p) => state.openPosition(p)) }));
      } else if (step !== 'abandon') {
        facts.push(fact(step, player));
      }
    }
    return facts;
  }

  // _proven_events: the post-deal steps the messages hold, each round as one event, with the plays' proven cards.
  function provenEvents(verified) {
    const state = verified.state, players = state.setup.players.length, talons = state.setup.talonRows.length;
    const plays = verified.plays[Symbol.iterator]();
    const events = [];
    let left = 0;
    for (const message of state.messages.slice(state.setup.schedule.length)) {
      const step = message.step;
      if (MP.hand.ROUNDS.includes(step)) {
        if (left === 0) {
          events.push(roundEvent(message, talons));
          left = players - (step === 'take' ? 1 : 0);
        }
        left -= 1;
      } else if (step === 'play') {
        const [player, , card] = plays.next().value;
        events.push(['play', player, card]);
      } else if (step !== MP.hand.DECIDE) {
        events.push([step, message.player]);
      }
    }
    return events;
  }

  // A round as one event: a talon round names its talon (and a ``take`` its recipient), as the record's do.
  function roundEvent(message, talons) {
    const talon = talons > 1 && has(message, 'talon') ? message.talon : 0;
    if (message.step === 'take') return ['take', message.to, talon];
    return message.step === 'talon' ? ['talon', talon] : [message.step];
  }

  // One transcript: {source, doc, findings, notes, verified}.
  // ``checkpoints`` (MP.hand.Checkpoints): many variants of one hand each cost only their new suffix.
  // ``replayer``: the page's engine, which compares the record with the steps the messages prove.
  function checkDocument(source, doc, pins, checkpoints = null, replayer = null) {
    const c = { source, doc, findings: [], notes: [], caveats: [], verified: null, absent: [],
      hand: isInt(doc && doc.hand) ? doc.hand : null };
    try {
      if (!isObject(doc)) throw new Finding(TRANSCRIPT, 'transcript shape', 'a transcript is a JSON object');
      checkShape(doc);
      const stated = conventionOf(doc);
      const roster = checkRoster(doc, pins);
      const patternName = tableOf(doc, stated);
      const setup = handSetup(doc, roster, patternName, Number(doc.attempt));
      checkAborts(c, roster, patternName);
      const refused = doc.state === 'refused';
      const verified = verifyMessages(setup, roster, doc.messages, 'messages', refused, checkpoints);
      c.verified = verified;
      if (refused) checkRefusal(c, roster, setup, verified);
      else checkOutcome(c, roster, patternName, verified, replayer);
    } catch (error) {
      if (Array.isArray(error)) c.findings.push(...error);
      else c.findings.push(asFinding(error));
    }
    return c;
  }

  // Across one session: hands 1, 2, ... each once, each citing the previous transcript's hash (check_sequence).
  function checkSequence(checks) {
    const found = [];
    const ordered = [...checks].sort((a, b) => (a.hand || 0) - (b.hand || 0));
    const first = V().encodeText([ordered[0].doc.protocol, ordered[0].doc.roster]);
    for (const c of ordered.slice(1)) {
      if (V().encodeText([c.doc.protocol, c.doc.roster]) !== first) {
        found.push([c, new Finding(TRANSCRIPT, 'transcript chain', "signed under another roster or protocol than the session's first hand (two sessions spliced)")]);
      }
    }
    ordered.forEach((current, i) => {
      const previous = i ? ordered[i - 1] : null;
      if (previous !== null && previous.hand === current.hand) {
        found.push([current, new Finding(TRANSCRIPT, 'hand sequence', `hand ${current.hand} appears twice`)]);
        return;
      }
      const expected = previous !== null && previous.hand === current.hand - 1 ? V().sha256Hex(V().encode(previous.doc)) : null;
      if (previous !== null && previous.hand !== current.hand - 1) {
        found.push([current, new Finding(TRANSCRIPT, 'hand sequence', `hands before ${current.hand} are missing`)]);
      } else if ((previous !== null || current.hand === 1) && (has(current.doc, 'previous') ? current.doc.previous : undefined) !== expected) {
        found.push([current, new Finding(TRANSCRIPT, 'transcript chain', "'previous' is not the hash of the previous hand's transcript")]);
      }
    });
    return found;
  }

  // Every transcript given ({source, doc}): failures as `fairdeal verify` lists them, notes and caveats.
  // ``replayer`` (the page's engine, FairdealEngine) replays and scores each session's records, as verify does, and
  // judges each ``closing`` settlement ({source, doc}) given beside the transcripts.
  function verifyTranscripts(docs, pins = { roster: null, keys: [] }, checkpoints = null, replayer = null, closing = []) {
    const checks = docs.map(({ source, doc }) => checkDocument(source, doc, pins, checkpoints, replayer));
    const failure = (c, f) => ({ source: c.source, hand: c.hand, party: f.party, check: f.check, detail: f.detail });
    const failures = checks.flatMap((c) => c.findings.map((f) => failure(c, f)));
    const sessions = new Map();
    for (const c of checks) {
      if (c.verified === null && c.findings.length) continue;
      const key = V().encodeText([c.doc.table, c.doc.session]);
      if (!sessions.has(key)) sessions.set(key, []);
      sessions.get(key).push(c);
    }
    for (const group of sessions.values()) failures.push(...checkSequence(group).map(([c, f]) => failure(c, f)));
    const notes = checks.flatMap((c) => c.notes.map((n) => `${c.source}: hand ${c.hand}: ${n}`));
    for (const group of replayer ? sessions.values() : []) {
      const [problems, recordNotes] = checkRecords(group, replayer);
      failures.push(...problems.map(([c, check, detail]) => failure(c, { party: RECORD, check, detail })));
      notes.push(...recordNotes.map(([c, text]) => `${c.source}: hand ${c.hand}: ${text}`));
    }
    for (const { source, doc } of closing) {
      failures.push(...checkClosing(doc, checks, replayer).map(([party, check, detail]) => ({ source, hand: null, party, check, detail })));
    }
    const pinned = Boolean(pins.roster) || pins.keys.length > 0;
    const caveats = checks.length && !pinned ? [`mental poker: ${UNPINNED}`] : [];
    if (replayer === null && checks.some((c) => c.verified !== null && has(c.doc, 'record'))) caveats.push(`mental poker: ${RECORD_STEPS}`);
    for (const c of checks) caveats.push(...c.caveats.map((text) => `${c.source}: hand ${c.hand}: ${text}`));
    return { ok: failures.length === 0 && checks.length + closing.length > 0, failures, notes, caveats };
  }

  // verify.check_records: the session's records through the engine (play legality, renonces included, and score
  // lines), each with the deal its messages proved.
  function checkRecords(checks, replayer) {
    const ordered = [...checks].sort((a, b) => (a.hand || 0) - (b.hand || 0));
    const first = ordered[0].doc;
    const evening = replayer.open(stated(first, first.players));
    if (typeof evening === 'string') {
      return [[], ordered.filter((c) => has(c.doc, 'record')).map((c) => [c, 'record not replayed: the session names no convention'])];
    }
    const view = (c) => {
      const doc = { hand: c.doc.hand, dealer: c.doc.dealer };
      if (c.verified !== null && c.verified.order !== null) {
        doc.deal = V().seatDeal(c.verified.order, tableOf(c.doc), Number(c.doc.dealer), c.doc.players.length);
      }
      if (has(c.doc, 'record')) doc.record = c.doc.record;
      if (has(c.doc, 'start')) doc.start = c.doc.start;
      return doc;
    };
    const trusted = ordered.map((c) => c.verified !== null && c.verified.order !== null && !c.findings.length);
    const found = evening.played(ordered.map(view), trusted);
    return [found.problems.map(([index, check, detail]) => [ordered[index], check, detail]),
      found.notes.map(([index, text]) => [ordered[index], text])];
  }

  // verify.py's _check_mp_settlement: a settlement given beside its session's transcripts (no game log states the
  // amounts): signed by every seat for the hands given, the end their stopped hand proves, and the amounts their
  // records (and that end's charge) settle to, by the page's engine.
  function checkClosing(doc, checks, replayer) {
    let roster;
    try {
      roster = V().readRoster(isObject(doc) ? doc.roster : undefined, '$.roster');
    } catch (error) {
      if (error instanceof V().Refused) return [[RECORD, 'settlement', `the settlement's roster: ${error.message}`]];
      throw error;
    }
    const hands = checks.filter((c) => isObject(c.doc) && sameValue(c.doc.roster, doc.roster)).sort((a, b) => (a.hand || 0) - (b.hand || 0));
    if (!hands.length) return [[RECORD, 'settlement', 'no transcript of the session it settles was given']];
    const complete = hands.filter((c) => c.doc.state === 'complete').map((c) => c.doc);
    const final = hands[hands.length - 1].doc;
    const stopped = final.state === 'abandoned' || final.state === 'refused' ? final : null;
    const last = stopped !== null ? stopped : (complete.length ? complete[complete.length - 1] : null);
    const end = stopped === null ? null : provedEnd(stopped);
    const names = roster.seats.map((seat) => seat.name);
    const first = hands[0].doc;
    const evening = replayer.open(stated(first, names));
    let paid = null;
    if (typeof evening !== 'string') {
      const amounts = evening.settled(complete, end === null ? [] : end.charged);
      if (amounts !== null) paid = Object.fromEntries(names.map((name, i) => [name, amounts[i]]));
    }
    const digest = last === null ? '' : V().sha256Hex(V().encode(last));
    return checkSettlement(doc, roster, doc.roster, complete.length, digest, paid, end);
  }

  // ---- the settlement (statements.check_settlement, verify.check_settlement_file) ------------------------------
  const FRACTION = /^(-?\d+)(?:\/([1-9]\d*))?$/;
  function sameAmount(text, value) {
    const match = FRACTION.exec(String(text));
    if (!match || typeof value !== 'number') return false;
    const p = Number(match[1]), q = Number(match[2] || 1);
    return q === 1 ? value === p : value === p / q;
  }

  // Python's repr() and str() of a JSON value, and its == (the verifier's, verifier.js).
  const pyRepr = (value) => V().pyRepr(value);
  const pyStr = (value) => (typeof value === 'string' ? value : pyRepr(value));
  const sameValue = (a, b) => V().sameValue(a, b);
  const truthy = (value) => V().truthy(value);

  // The ``end`` a stopped hand proves (verify.proved_end): the player its witnessed abandon names, or for a refusal
  // the party at fault (the signer of the refused message, or the refuser when that message verifies); null when
  // the hand's own messages fail.
  function provedEnd(doc) {
    const c = checkDocument(`hand ${doc.hand}`, doc, { roster: null, keys: [] });
    if (doc.state === 'abandoned') {
      if (c.verified === null || c.verified.abandoned === null) return null;
      return { hand: doc.hand, charged: [c.verified.abandoned[0]] };
    }
    const players = (Array.isArray(doc.players) ? doc.players : []).map((name) => `player ${name}`);
    const named = (refusal) => c.findings.filter((f) => (f.check === 'refusal') === refusal && players.includes(f.party)).map((f) => f.party);
    const refusers = named(true);
    const fault = (refusers.length ? refusers : named(false)).slice(0, 1);
    return { hand: doc.hand, charged: fault.map((party) => party.slice('player '.length)) };
  }

  // The transcript of the hand that ended the evening (verify.ended_transcript): ``next`` is the file after the
  // last one the log cites (hand-(N+1).json), ``last`` that one; it counts when it is a stopped v4 hand chained
  // to it.
  function endedTranscript(next, last) {
    if (!next || next.kind !== 'mp' || !isObject(next.doc) || !['abandoned', 'refused'].includes(next.doc.state)) return null;
    if (last && !isObject(last.doc)) return null;
    const previous = last ? V().sha256Hex(V().encode(last.doc)) : null;
    return (has(next.doc, 'previous') ? next.doc.previous : null) === previous ? next : null;
  }

  // ``who``'s signed settlement body against the session the log cites (_check_settlement_body); ``amounts`` are
  // the log's settlement line (JSON numbers).
  function settlementBodyProblem(who, body, prev, hands, last, amounts) {
    if (body.hands !== hands || body.last !== last || prev !== last) {
      return `player ${who} signed a session of ${pyStr(body.hands)} hand(s) ending elsewhere; the log cites ${hands} ending at the transcript it cites last (hands dropped or spliced)`;
    }
    if (amounts === null) return null;
    const stated = isObject(body.settlement) ? body.settlement : {};
    const names = Object.keys(stated);
    if (names.length !== Object.keys(amounts).length || !names.every((name) => sameAmount(stated[name], amounts[name]))) {
      return `the log's settlement line is not the one player ${who} signed`;
    }
    return null;
  }

  // The closing statement (statements.check_settlement): every seat signed this session's hand count, last
  // transcript and settlement; after an evening's ``end`` (what the stopped hand proves), every seat but the
  // charged signed exactly that end, and a signed refusal is judged: with cause (the publisher's fault) or without.
  function checkSettlement(doc, roster, rosterDoc, hands, last, amounts, end) {
    const found = [];
    const fields = ['format', 'protocol', 'roster', 'statements', 'version'];
    if (!isObject(doc) || Object.keys(doc).sort().join() !== fields.join() || doc.format !== 'fairdeal-settlement'
      || doc.version !== 1 || doc.protocol !== PROTOCOL_V4) {
      return [[RECORD, 'settlement', `not a fairdeal-settlement version 1 document of ${PROTOCOL_V4} (${fields.join(', ')})`]];
    }
    if (!sameValue(doc.roster, rosterDoc)) return [[RECORD, 'settlement', "the settlement is signed for another roster than the transcripts'"]];
    const signedBy = new Set(), refusedBy = new Set();
    (Array.isArray(doc.statements) ? doc.statements : []).forEach((entry, index) => {
      let envelope;
      try {
        envelope = openChecked(entry, roster, 0, null, `statements[${index}]`, 'settlement', 'relay');
      } catch (error) {
        const f = asFinding(error);
        found.push([f.party === TRANSCRIPT ? RECORD : f.party, 'settlement', f.detail]);
        return;
      }
      const who = roster.seats[envelope.sender].name, body = envelope.body;
      if (body.agrees === false) {
        const refused = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'agrees' && k !== 'reason'));
        const wrong = settlementBodyProblem(who, refused, envelope.prev, hands, last, amounts);
        if (wrong !== null || !sameValue(refused.end, end)) {
          found.push([RECORD, wrong === null ? 'settlement end' : 'settlement', `player ${who} refused, with cause, the settlement put to him (${pyStr(body.reason)})`]);
        } else {
          found.push([`player ${who}`, 'settlement refusal', `refused a settlement that holds (${pyStr(body.reason)})`]);
        }
        refusedBy.add(envelope.sender);
        return;
      }
      const wrong = settlementBodyProblem(who, body, envelope.prev, hands, last, amounts);
      if (wrong !== null) found.push([RECORD, 'settlement', wrong]);
      if (!sameValue(body.end, end)) {
        found.push([RECORD, 'settlement end', `player ${who} signed the end ${pyRepr(body.end)}; the stopped hand proves ${pyRepr(end)}`]);
      }
      signedBy.add(envelope.sender);
    });
    const charged = end === null ? [] : end.charged;
    roster.seats.forEach((seat, index) => {
      if (!signedBy.has(index) && !refusedBy.has(index) && !charged.includes(seat.name)) found.push([RECORD, 'settlement', `player ${seat.name} did not sign the settlement`]);
      if (signedBy.has(index) && charged.includes(seat.name)) found.push([RECORD, 'settlement end', `player ${seat.name}, charged, signed his own end`]);
    });
    return found;
  }

  // A v4 evening's log closes with the settlement every seated player signed (verify.check_settlement_file):
  // ``log`` is the log's file, ``cited`` the log's [file, line, where] of every transcript it cites, ``end`` its
  // [where, line] settlement line, ``next`` the file after the last cited one (hand-(N+1).json: the voided hand,
  // when the evening ended), ``settlementFile`` the settlement.json beside them. Failures as verify lists them;
  // ``unverified`` gets what the page cannot evaluate (the abort penalty of a house rule).
  function checkSettlementFile(log, settlementFile, cited, end, next, unverified, replayer = null) {
    const fail = ([party, check, detail]) => ({ source: log.name, hand: null, party, check, detail });
    let last = cited.length ? cited[cited.length - 1][0] : null;
    if (last && !isObject(last.doc)) return []; // the transcript's own checks report it
    const ended = endedTranscript(next, last);
    const line = end ? end[1] : null;
    const penalty = line && has(line, 'penalty') ? line.penalty : [];
    if (ended === null && !cited.length && line && truthy(penalty)
      && !(settlementFile && isObject(settlementFile.doc) && settlementFile.doc.protocol !== PROTOCOL_V4)) {
      return [fail([RECORD, 'settlement', "the log charges an evening's end, but the hand that ended it is missing"])];
    }
    let proved = null;
    if (ended !== null) {
      last = ended;
      proved = provedEnd(ended.doc);
    }
    if (!last || last.doc.protocol !== PROTOCOL_V4 || !line) return [];
    if (!settlementFile) return [fail([RECORD, 'settlement', 'no signed settlement beside the transcripts (settlement.json)'])];
    if (!isObject(settlementFile.doc)) return [fail([RECORD, 'settlement', `settlement.json: ${settlementFile.reason || 'not canonical JSON'}`])];
    let roster;
    try {
      roster = V().readRoster(last.doc.roster, '$.roster');
    } catch (error) {
      if (error instanceof V().Refused) return [fail([RECORD, 'settlement', `settlement.json: ${error.message}`])];
      throw error;
    }
    const amounts = isObject(line.settlement) ? line.settlement : null;
    const found = checkSettlement(settlementFile.doc, roster, last.doc.roster, cited.length, last.sha256, amounts, proved).map(fail);
    const names = roster.seats.map((seat) => seat.name);
    const charged = (proved === null ? [] : proved.charged).map((name) => names.indexOf(name));
    const convention = has(last.doc, 'convention') ? last.doc.convention : {};
    const table = { system: last.doc.system, convention, pulya: last.doc.pulya ?? null, seats: names };
    const charge = V().abortPenalty(table, charged, replayer);
    if (charge.unknown) {
      unverified.push(V().unverifiedPenalty(log.name, charge));
    } else if (!sameValue(penalty, charge.lines)) {
      found.push(fail([RECORD, 'end penalty', `the log's end charges ${pyRepr(penalty)}, the stopped hand ${pyRepr(charge.lines)}`]));
    }
    return found;
  }

  const line = (f) => `${f.source}: hand ${f.hand === null ? '?' : f.hand}: ${f.party}: ${f.check}: ${f.detail}`;

  MP.verify = { checkDocument, verifyTranscripts, checkSettlementFile, endedTranscript, provedEnd, pyRepr, line, PROTOCOL_V4 };
})(globalThis);
