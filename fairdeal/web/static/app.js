// The fairdeal serve browser client: lobby, table, sheet and history. The identity key and every hand's seed are
// made here and kept in IndexedDB; the server never sees a secret key, and sees a seed only after every seat has
// committed to its own. Every protocol message (fairdeal-commit-reveal/4) is checked, built and signed here; at a
// mental-poker table (fairdeal-mental-poker/4) mental_poker_seat.js plays the seat, and the server sees no card.
import * as P from './protocol.js';
import { MentalPokerSeat, loadSeatScripts } from './mental_poker_seat.js';

const $ = (sel, el = document) => el.querySelector(sel);
const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) el.append(kid.nodeType ? kid : String(kid));
  return el;
};

// ---- words ------------------------------------------------------------------------------------------------------
const WORDS = {
  ru: {
    lobby: 'Столы', create: 'Создать стол', system: 'Система', seats: 'Игроков', name: 'Имя', join: 'Сесть',
    watch: 'Смотреть', bot: 'Бот', empty: 'свободно', you: 'вы', turn: 'ход', pass: 'пас', misere: 'мизер',
    whist: 'вист', 'half-whist': 'полвиста', 'whist-talon': 'вист с прикупом', open: 'в светлую', closed: 'втёмную',
    take: 'взять прикуп', discard: 'Снести', concede: 'без трёх', sheet: 'Пуля', pulya: 'пуля', gora: 'гора',
    whists: 'висты', settlement: 'Расчёт', history: 'Сдачи', hand: 'Сдача', dealer: 'сдаёт', contract: 'контракт',
    declarer: 'играет', talon: 'прикуп', tricks: 'взятки', export: 'Экспорт ключа', import: 'Импорт ключа',
    key: 'ключ', stage: 'стадия', transcript: 'протокол', line: 'запись', log: 'журнал', finished: 'пуля закрыта',
    aborted: 'стол прерван', seating: 'ждём игроков', countersign: 'подписываем сессию', commit: 'обязательства',
    seed: 'раскрываем зёрна', play: 'игра', reconnecting: 'переподключение…', connected: 'на связи',
    verified: 'цепочка сервиса проверена', mine: 'мои', yes: 'да', no: 'нет', invite: 'пригласить',
    alone: 'один', kontra: 'контра', nokontra: 'без контры', follow: 'идти по стопам', stand: 'оставить',
    announce: 'объявить без тузов', quiet: 'молчать', mytricks: 'взятки', operators: 'Операторам',
    roster: 'подписываем состав стола', accept: 'принимаем сессию', record: 'подписываем запись сдачи',
    settle: 'подписываем расчёт', rosterfile: 'состав стола', refused: 'отказ подписать',
    dealcheck: 'колода пересчитана в этом браузере', keybad: 'файл ключа не подходит',
    ended: 'вечер окончен досрочно', endtitle: 'Вечер окончен досрочно', voided: 'аннулирована',
    charged: 'штраф', nocharge: 'штрафа нет', on: 'на', 'record-sign': 'не подписана вовремя запись сдачи',
    refusal: 'отказ подписать', abort: 'раздача трижды прервана: не пришли семена', times: 'раз', evidence: 'доказательство',
    dealing: 'Раздача', 'commit-reveal': 'обязательства и раскрытие', 'mental-poker': 'ментальный покер',
    waiting: 'ждём', keys: 'ключи', shuffle: 'тасовка', deal: 'раздача', dummy: 'болван', reveal: 'вскрытие',
    'discard-open': 'вскрытие снёса', attempt: 'раздача',
    provedcheck: 'карты записи — те, что доказал протокол',
  },
  en: {
    lobby: 'Tables', create: 'Create table', system: 'System', seats: 'Players', name: 'Name', join: 'Sit here',
    watch: 'Watch', bot: 'Bot', empty: 'empty', you: 'you', turn: 'to act', pass: 'pass', misere: 'misère',
    whist: 'whist', 'half-whist': 'half-whist', 'whist-talon': 'whist with talon', open: 'open', closed: 'closed',
    take: 'take the talon', discard: 'Discard', concede: 'concede three down', sheet: 'Sheet', pulya: 'pulya',
    gora: 'gora', whists: 'whists', settlement: 'Settlement', history: 'Hands', hand: 'Hand', dealer: 'deals',
    contract: 'contract', declarer: 'declarer', talon: 'talon', tricks: 'tricks', export: 'Export key',
    import: 'Import key', key: 'key', stage: 'stage', transcript: 'transcript', line: 'log line', log: 'game log',
    finished: 'the pulya is closed', aborted: 'table aborted', seating: 'waiting for players',
    countersign: 'countersigning the session', commit: 'seed commitments', seed: 'opening seeds', play: 'play',
    reconnecting: 'reconnecting…', connected: 'connected', verified: "the service's chain checks out",
    mine: 'mine', yes: 'yes', no: 'no', invite: 'invite', alone: 'alone', kontra: 'kontra', nokontra: 'no kontra',
    follow: 'follow', stand: 'let stand', announce: 'announce no aces', quiet: 'keep quiet', mytricks: 'tricks',
    operators: 'Operators', dealcheck: 'the deck was re-derived in this browser',
    roster: 'signing the roster', accept: 'accepting the session', record: "countersigning the hand's record",
    settle: 'countersigning the settlement', rosterfile: 'roster', refused: 'refused to sign',
    keybad: 'the key file does not fit',
    ended: 'the evening ended early', endtitle: 'The evening ended early', voided: 'void', charged: 'charged',
    nocharge: 'no one charged', on: 'on', 'record-sign': "the hand's record was not countersigned in time",
    refusal: 'a refusal to sign', abort: 'the deal was aborted three times: seeds not sent', times: 'times',
    evidence: 'evidence', dealing: 'Dealing', 'commit-reveal': 'commit-reveal', 'mental-poker': 'mental poker',
    waiting: 'waiting for', keys: 'keys', shuffle: 'shuffle', deal: 'deal', dummy: 'dummy', reveal: 'reveal',
    'discard-open': 'opening the discard', attempt: 'deal', provedcheck: "the record's cards are the ones the messages proved",
  },
};
// A mental-poker hand's steps, where the words above name something else (``turn`` is whose move it is).
const STEPS = {
  ru: { act: 'решение', decide: 'решение', turn: 'карта прикупа', take: 'прикуп в руку', open: 'открыть карты', announce: 'объявление',
    abandon: 'свидетельство: игрок не ответил' },
  en: { act: 'a decision', decide: 'a decision', turn: 'turning a talon card', take: 'passing the talon', open: 'laying the hand open',
    announce: 'the announcement', abandon: 'witnessing a player who did not answer' },
};
let lang = localStorage.getItem('fairdeal-lang') || 'ru';
const t = (k) => WORDS[lang][k] ?? k;
const stepWord = (step) => STEPS[lang][step] ?? t(step);

const SUITS = ['♠', '♣', '♦', '♥'];
const RANKS = ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
const RANKS_RU = ['7', '8', '9', '10', 'В', 'Д', 'К', 'Т'];
const STRAINS = { S: '♠', C: '♣', D: '♦', H: '♥', NT: lang === 'ru' ? 'БК' : 'NT' };

function cardEl(code, { class: extra, ...attrs } = {}) {
  const suit = code >> 3, rank = code & 7;
  const red = suit >= 2 ? ' red' : '';
  return h('span', { ...attrs, class: 'card' + red + (extra ? ' ' + extra : ''), 'data-card': code },
    h('span', { class: 'rank' }, (lang === 'ru' ? RANKS_RU : RANKS)[rank]), h('span', { class: 'suit' }, SUITS[suit]));
}
const backEl = () => h('span', { class: 'card back' });

function tokenText(token) {
  if (token === 'pass') return t('pass');
  if (token === 'mine') return t('mine');
  let text = token.replace(/-bp$/, ' ⊘').replace(/^misere/, t('misere'));
  const m = /^(\d+)(S|C|D|H|NT)(.*)$/.exec(text);
  if (m) text = m[1] + (m[2] === 'NT' ? (lang === 'ru' ? 'БК' : 'NT') : STRAINS[m[2]]) + m[3];
  return text;
}

function actionText(a) {
  switch (a.kind) {
    case 'bid': return tokenText(a.token);
    case 'declare': return tokenText(a.token);
    case 'defend': return t(a.call);
    case 'chooseopen': return a.open ? t('open') : t('closed');
    case 'taketalon': return t('take');
    case 'concede': return t('concede');
    case 'invite': return a.invite ? t('invite') : t('alone');
    case 'kontra': return a.double ? t('kontra') : t('nokontra');
    case 'follow': return a.take ? t('follow') : t('stand');
    case 'announce': return a.no_aces ? t('announce') : t('quiet');
    default: return a.kind;
  }
}

// ---- IndexedDB: the identity key and the seeds ------------------------------------------------------------------
function idb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open('fairdeal', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('kv');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
async function kvGet(key) {
  const db = await idb();
  return new Promise((resolve) => { const r = db.transaction('kv').objectStore('kv').get(key); r.onsuccess = () => resolve(r.result); });
}
async function kvSet(key, value) {
  const db = await idb();
  return new Promise((resolve) => { const tx = db.transaction('kv', 'readwrite'); tx.objectStore('kv').put(value, key); tx.oncomplete = resolve; });
}

async function identity() {
  let id = await kvGet('identity');
  if (!id) {
    const secret = P.newSecret();
    id = { secret, key: P.publicKey(secret), name: '' };
    await kvSet('identity', id);
  }
  return id;
}

// ---- the lobby --------------------------------------------------------------------------------------------------
async function lobby(me) {
  const root = $('#root');
  root.replaceChildren();
  const systems = await (await fetch('/api/systems')).json();
  const tables = await (await fetch('/api/tables')).json();
  const sysSel = h('select', { id: 'system' }, systems.map((s) => h('option', { value: s.name }, s.title)));
  const seatSel = h('select', { id: 'seats' });
  const dealSel = h('select', { id: 'dealing' }, ['commit-reveal', 'mental-poker'].map((d) => h('option', { value: d }, t(d))));
  const fillSeats = () => {
    const s = systems.find((x) => x.name === sysSel.value);
    seatSel.replaceChildren(...s.players.map((n) => h('option', { value: n }, n)));
  };
  sysSel.addEventListener('change', fillSeats);
  fillSeats();
  const create = h('button', { id: 'create', on: { click: async () => {
    const reply = await fetch('/api/tables', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ system: sysSel.value, seats: Number(seatSel.value), dealing: dealSel.value }) });
    const body = await reply.json();
    if (!reply.ok) return status(body.error, true);
    location.hash = body.table;
  } } }, t('create'));
  root.append(
    h('section', { class: 'panel' }, h('h2', {}, t('create')),
      h('label', {}, t('system'), ' ', sysSel), ' ', h('label', {}, t('seats'), ' ', seatSel), ' ',
      h('label', {}, t('dealing'), ' ', dealSel), ' ', create),
    identityPanel(me),
    h('section', { class: 'panel' }, h('h2', {}, t('lobby')),
      h('table', { class: 'list' }, tables.map((x) => h('tr', {},
        h('td', {}, h('a', { href: '#' + x.table }, x.table)), h('td', {}, x.title), h('td', {}, x.seats),
        h('td', {}, t(x.dealing)), h('td', {}, t(x.stage)), h('td', {}, x.roster.map((r) => r.name).join(', ')))))),
    h('p', {}, h('a', { href: '/operator' }, t('operators'))),
  );
}

// The key file is the one `fairdeal keys new` writes, so `fairdeal verify --me FILE` takes it as it is.
function identityPanel(me) {
  const exportBtn = h('button', { id: 'export-key', on: { click: () => {
    const blob = new Blob([P.keyFile(me.secret, me.name)], { type: 'application/json' });
    const a = h('a', { href: URL.createObjectURL(blob), download: 'fairdeal-identity.key' });
    a.click();
  } } }, t('export'));
  const file = h('input', { type: 'file', id: 'import-key', on: { change: async (ev) => {
    let data;
    try {
      data = P.readKeyFile(await ev.target.files[0].text());
    } catch (e) {
      return status(`${t('keybad')}: ${e.message}`, true);
    }
    Object.assign(me, { secret: data.secret, key: data.key, name: data.name || me.name });
    await kvSet('identity', me);
    location.reload();
  } } });
  return h('section', { class: 'panel' }, h('h2', {}, t('key')),
    h('code', { title: me.key }, me.key.slice(0, 16) + '…'), ' ', exportBtn, ' ', h('label', {}, t('import'), ' ', file));
}

function status(text, bad = false) {
  const el = $('#status');
  el.textContent = text;
  el.className = bad ? 'bad' : '';
}

// ---- the table --------------------------------------------------------------------------------------------------
class TableClient {
  constructor(me, tableId) {
    this.me = me; this.tableId = tableId; this.view = null; this.seatWanted = null; this.picked = new Set();
    this.sent = new Set(); this.retry = 0; this.closed = false; this.checks = {}; this.dealt = {};
    this.envelopes = []; this.player = null; this.mp = null;
  }

  connect(seat = null) {
    this.seatWanted = seat;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    this.ws = new WebSocket(`${proto}://${location.host}/ws/${this.tableId}`);
    this.envelopes = []; this.player = null;  // the relay sends the whole chain again; it is checked again
    this.ws.onmessage = (ev) => this.onMessage(JSON.parse(ev.data));
    this.ws.onopen = () => { this.retry = 0; status(t('connected')); };
    this.ws.onclose = () => {
      if (this.closed) return;
      status(t('reconnecting'), true);
      this.sent.clear();
      setTimeout(() => this.connect(null), Math.min(5000, 300 * 2 ** this.retry++));
    };
  }

  reseat(seat) {
    this.ws.onclose = null;      // a deliberate close: no reconnect from the old socket
    this.ws.close();
    this.connect(seat);
  }

  onMessage(m) {
    if (m.type === 'challenge') {
      const hello = { type: 'hello', key: this.me.key, signature: P.sign(this.me.secret, P.loginStatement(this.tableId, m.nonce)),
        name: this.seatWanted === null ? null : this.me.name, seat: this.seatWanted };
      this.ws.send(JSON.stringify(hello));
    } else if (m.type === 'chain') {
      if (m.from !== this.envelopes.length) return this.reseat(null);  // a gap: start over from the whole chain
      this.envelopes.push(...m.envelopes);
    } else if (m.type === 'view') {
      this.view = m.view;
      (m.view.dealing === 'mental-poker' ? this.onMentalPokerView(m.view) : this.onView()).catch((e) => this.failed(e));
    } else if (m.type === 'error') {
      status(m.error, true);
    }
  }

  async onView() {
    const v = this.view, g = v.game;
    if (g && v.you !== null && v.hand) {
      const key = `dealt:${this.tableId}:${v.hand}`;
      if (!this.dealt[v.hand]) this.dealt[v.hand] = await kvGet(key);
      if (!this.dealt[v.hand] && (g.phase === 'auction' || g.step === 0)) {
        this.dealt[v.hand] = g.hand;
        await kvSet(key, g.hand);
      }
    }
    await this.loadChecks(v.history);
    this.render();
    await this.protocolStep();
  }

  // Each closed hand's own check (its deal re-derived here, or its record's cards proved), as this browser kept it.
  async loadChecks(history) {
    for (const x of history) if (!(x.hand in this.checks)) this.checks[x.hand] = await kvGet(`check:${this.tableId}:${x.hand}`);
  }

  failed(error) {
    status(String(error.message || error), true);
    console.error(error);  // the stack, for whoever opens the console
  }

  // A mental-poker table: the seat (its party, its secrets) completes the view with my cards and answers.
  async onMentalPokerView(raw) {
    await loadSeatScripts();
    this.mp ??= new MentalPokerSeat({
      tableId: this.tableId, me: this.me, rows: () => this.envelopes, store: { get: kvGet, set: kvSet },
      send: (frame) => this.ws.send(P.canonicalJson({ ...frame, table: this.tableId, seat: this.view.you })),
    });
    if (raw.you !== null && ['play', 'record'].includes(raw.stage)) await this.mp.follow(raw);
    this.view = this.mp.present(raw);
    await this.loadChecks(raw.history);
    this.render();
    await this.mp.step(this.view);
  }

  sendSigned(envelope) {
    const v = this.view;
    this.ws.send(P.canonicalJson({ type: 'signed', table: this.tableId, seat: v.you, envelope }));
  }

  send(type, body) {
    const v = this.view;
    const envelope = { type, table: this.tableId, seat: v.you, seq: v.last_seq + 1, body, signature: null };
    this.ws.send(JSON.stringify(envelope));
  }

  // The protocol steps happen by themselves, each checked here first (protocol.js's Player): a check that fails
  // is answered with a signed refusal, which stops the table with this browser's evidence on the record.
  async protocolStep() {
    const v = this.view, pr = v.protocol, seat = v.you;
    if (seat === null || !pr.need) return;
    const key = `${pr.need}:${pr.hand}:${pr.chain}`;
    if (this.sent.has(key) || this.envelopes.length !== pr.chain) return;
    this.sent.add(key);
    if (!this.player) this.player = new P.Player(seat, this.me.secret, pr.roster, v.deck);
    if (pr.need === 'roster-sign') {
      const signature = this.player.signRoster(v.roster.find((r) => r.seat === seat).name);
      this.ws.send(P.canonicalJson({ type: 'roster-sign', table: this.tableId, seat, signature }));
      return;
    }
    const hand = pr.hand;
    try {
      this.player.absorb(this.envelopes.slice(this.player.chain.length));
    } catch (error) {
      if (!(error instanceof P.Refusal)) throw error;
      const at = pr.need === P.K.ACCEPT || pr.need === P.K.SETTLEMENT_SIGN ? 0 : hand;
      return this.sendSigned(this.player.refuse(at, pr.need, error));
    }
    let envelope;
    if (pr.need === P.K.ACCEPT) envelope = this.player.acceptSession(pr.roster);
    else if (pr.need === P.K.COMMIT) {
      const seedKey = `seed:${this.tableId}:${hand}:${this.player.currentAttempt()}`;
      let seed = await kvGet(seedKey);
      if (!seed) { seed = P.randomSeed(); await kvSet(seedKey, seed); }  // kept before it is committed to
      envelope = this.player.commit(hand, seed);
    } else if (pr.need === P.K.REVEAL) {
      const seed = await kvGet(`seed:${this.tableId}:${hand}:${this.player.currentAttempt()}`);
      if (!seed) return status('the seed of this hand is not in this browser', true);
      envelope = this.player.reveal(hand, seed);
    } else if (pr.need === P.K.RECORD_SIGN) {
      envelope = this.player.countersign(hand, this.dealt[hand]);
      const check = envelope.kind === P.K.REFUSAL ? envelope.body.reason : '';
      this.checks[hand] = check;
      await kvSet(`check:${this.tableId}:${hand}`, check);
    } else envelope = this.player.signSettlement();
    if (envelope.kind === P.K.REFUSAL) status(`${t('refused')}: ${envelope.body.reason}`, true);
    else if (pr.need === P.K.COMMIT) status(t('verified'));
    this.sendSigned(envelope);
  }

  act(action) {
    if (this.mp) this.mp.choose(action).catch((e) => this.failed(e));
    else this.send('act', { action });
    this.picked.clear();
  }

  render() {
    const v = this.view, root = $('#root');
    root.replaceChildren(h('div', { class: 'table-page' },
      h('section', { class: 'felt', id: 'felt' }, this.renderSeats(), this.renderCentre()),
      h('aside', {}, this.renderInfo(), this.renderSheet(), this.renderHistory())));
    if (v.you !== null && v.game) root.querySelector('#felt').append(this.renderMine());
  }

  name(seat) {
    const r = this.view.roster.find((x) => x.seat === seat);
    return r ? r.name : t('empty');
  }

  renderSeats() {
    const v = this.view, g = v.game;
    const seats = [];
    for (let s = 0; s < v.seats; s++) {
      if (s === v.you && g) continue;
      const r = v.roster.find((x) => x.seat === s);
      const toMove = (v.to_move === s) ? ' to-move' : '';
      const kids = [h('div', { class: 'who' }, r ? r.name + (r.bot ? ` (${t('bot')})` : '') : t('empty'),
        s === v.dealer && v.stage !== 'seating' ? ' · ' + t('dealer') : '')];
      if (!r && v.stage === 'seating') {
        if (v.you === null) kids.push(h('button', { class: 'act sit', 'data-seat': s, on: { click: () => this.sit(s) } }, t('join')));
        kids.push(h('button', { class: 'botbtn', 'data-seat': s, on: { click: () => this.bot(s) } }, t('bot')));
      }
      if (g) {
        const open = g.open_hands[String(s)];
        kids.push(h('div', { class: 'cards small' }, open ? open.map((c) => this.cardFor(c, s)) :
          Array.from({ length: g.hidden[String(s)] || 0 }, backEl)));
        kids.push(h('div', { class: 'won' }, `${t('mytricks')}: ${g.won[s] ?? 0}`));
      }
      seats.push(h('div', { class: 'seat' + toMove, id: 'seat-' + s }, kids));
    }
    return h('div', { class: 'seats' }, seats);
  }

  cardFor(code, owner) {
    const g = this.view.game;
    const play = g.legal.find((a) => a.kind === 'play' && a.card === code && a.seat === owner);
    if (play) return cardEl(code, { class: 'act', on: { click: () => this.act(play) } });
    return cardEl(code);
  }

  renderCentre() {
    const v = this.view, g = v.game;
    // A hand dealt again after a player walked away from its opening says which deal of it this is.
    const attempt = v.setup && v.setup.attempt > 1 ? ` (${t('attempt')} ${v.setup.attempt})` : '';
    const kids = [h('div', { class: 'stage' }, `${t('stage')}: ${t(v.stage)}`, v.hand ? ` · ${t('hand')} ${v.hand}${attempt}` : '',
      v.reason ? ` · ${v.reason}` : '', v.due ? ` · ${t('waiting')} ${v.due.player}: ${stepWord(v.due.step)}` : '')];
    if (g) {
      kids.push(h('div', { class: 'auction' }, g.auction.map(([s, tok]) => h('span', { class: 'bid' }, `${this.name(s)}: ${tokenText(tok)}`))));
      if (g.contract) kids.push(h('div', { class: 'contract' }, `${t('contract')}: ${tokenText(g.contract)} · ${t('declarer')}: ${this.name(g.declarer)}`));
      if (g.defence.length) kids.push(h('div', {}, g.defence.map(([s, c]) => `${this.name(s)}: ${t(c)}`).join(' · ')));
      if (g.talon_seen.length) kids.push(h('div', { class: 'talon' }, t('talon') + ': ', g.talon_seen.map((c) => cardEl(c))));
      kids.push(h('div', { class: 'trick', id: 'trick' }, g.current.map(([s, c]) => h('div', { class: 'played' }, cardEl(c), h('small', {}, this.name(s))))));
      if (g.tricks.length) {
        const last = g.tricks[g.tricks.length - 1];
        kids.push(h('div', { class: 'last' }, '↺ ', last.plays.map(([, c]) => cardEl(c, { class: 'tiny' })), ' → ', this.name(last.winner)));
      }
    }
    if (v.stage === 'finished') kids.push(h('div', { class: 'final' }, t('finished')));
    if (v.ended) kids.push(this.renderEnd(v.ended));
    return h('div', { class: 'centre' }, kids);
  }

  // The signed end: the hand it voids, why, whom it charges and the charge (the convention's abort penalty), and
  // the voided hand's transcript, the end's evidence.
  renderEnd(end) {
    const v = this.view;
    const lines = end.penalty.map((p) => `${this.name(p.seat)}: ${p.points} ${t(p.column)}` +
      (p.on === undefined || p.on === null ? '' : ` ${t('on')} ${this.name(p.on)}`));
    // After aborts a seat is charged once per abort: each name once, with how many times.
    const counts = new Map();
    for (const name of end.names) counts.set(name, (counts.get(name) || 0) + 1);
    const names = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n} ${t('times')}` : name));
    const who = names.length ? `${t('charged')}: ${names.join(', ')}` : t('nocharge');
    return h('div', { class: 'final ended', id: 'ended' }, h('strong', {}, t('endtitle')),
      h('div', {}, `${t('hand')} ${end.hand}: ${t('voided')} · ${stepWord(end.step)}`),
      h('div', { class: 'charge' }, who, lines.length ? ` (${lines.join('; ')})` : ''),
      h('a', { href: `/api/tables/${v.table}/hands/${end.hand}/transcript`, download: true }, `${t('transcript')} · ${t('evidence')}`));
  }

  renderMine() {
    const v = this.view, g = v.game;
    const discards = g.legal.filter((a) => a.kind === 'discard');
    const need = discards.length ? discards[0].cards.length : 0;
    const cards = g.hand.map((c) => {
      if (need) {
        const chosen = this.picked.has(c);
        return cardEl(c, { class: 'pick' + (chosen ? ' chosen' : ''), on: { click: () => {
          chosen ? this.picked.delete(c) : this.picked.add(c);
          this.render();
        } } });
      }
      return this.cardFor(c, v.you);
    });
    const buttons = g.legal.filter((a) => !['play', 'discard'].includes(a.kind))
      .map((a) => h('button', { class: 'act', on: { click: () => this.act(a) } }, actionText(a)));
    if (need) {
      const chosen = [...this.picked].sort((a, b) => a - b);
      const match = discards.find((a) => a.cards.length === chosen.length && a.cards.every((c, i) => c === chosen[i]));
      buttons.push(h('button', { id: 'discard', class: match ? 'act' : '', disabled: !match, on: { click: () => match && this.act(match) } }, t('discard')));
    }
    const mine = v.to_move === v.you ? ' to-move' : '';
    return h('div', { class: 'mine' + mine, id: 'mine' },
      h('div', { class: 'who' }, `${this.name(v.you)} (${t('you')})`, v.dealer === v.you ? ' · ' + t('dealer') : '',
        ` · ${t('mytricks')}: ${g.won[v.you] ?? 0}`),
      h('div', { class: 'cards' }, cards), h('div', { class: 'actions' }, buttons));
  }

  renderInfo() {
    const v = this.view;
    return h('section', { class: 'panel' }, h('h3', {}, `${v.title} · ${v.table}`),
      h('div', {}, v.roster.map((r) => h('div', {}, `${r.seat + 1}. ${r.name}${r.bot ? ` (${t('bot')})` : ''} `, h('code', { title: r.key }, r.key.slice(0, 8))))),
      h('a', { href: `/api/tables/${v.table}/log`, download: true }, t('log')), ' · ',
      v.protocol.roster ? h('a', { href: `/api/tables/${v.table}/roster`, download: true, id: 'roster-link' }, t('rosterfile')) : '',
      ['finished', 'ended'].includes(v.stage) ? [' · ', h('a', { href: `/api/tables/${v.table}/hands/0/transcript`, download: true }, t('settlement'))] : '');
  }

  renderSheet() {
    const s = this.view.sheet, L = s.labels;
    const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
    const rows = s.players.map((p) => {
      const seat = s.sheet[p];
      return h('tr', {}, h('th', {}, p), h('td', { class: 'pulya' }, fmt(seat.pulya)), h('td', { class: 'gora' }, fmt(seat.gora)),
        h('td', { class: 'whists' }, Object.entries(seat.whists).map(([o, w]) => `${o}: ${fmt(w)}`).join(' · ')),
        h('td', {}, fmt(s.settlement[p])));
    });
    return h('section', { class: 'panel sheet', id: 'sheet' }, h('h3', {}, L.title || t('sheet')),
      h('table', {}, h('tr', {}, h('th', {}), h('th', {}, L.pulya || t('pulya')), h('th', {}, L.gora || t('gora')),
        h('th', {}, t('whists')), h('th', {}, t('settlement'))), rows));
  }

  renderHistory() {
    const v = this.view;
    return h('section', { class: 'panel' }, h('h3', {}, t('history')),
      h('table', { class: 'list', id: 'history' }, v.history.map((x) => h('tr', {},
        h('td', {}, x.hand), h('td', {}, this.name(x.dealer)), h('td', {}, x.contract ? tokenText(x.contract) : x.kind),
        h('td', {}, x.declarer === null ? '' : this.name(x.declarer)),
        h('td', { class: 'check', title: this.checks[x.hand] || t(this.mp ? 'provedcheck' : 'dealcheck') },
          this.checks[x.hand] === '' ? '✓' : this.checks[x.hand] ? '✗' : ''),
        h('td', {}, h('a', { href: `/api/tables/${v.table}/hands/${x.hand}/transcript`, download: true }, t('transcript'))),
        h('td', {}, h('a', { href: `/api/tables/${v.table}/hands/${x.hand}/line`, target: '_blank' }, t('line')))))));
  }

  async sit(seat) {
    if (!this.me.name) {
      const name = ($('#name') || {}).value || prompt(t('name'));
      if (!name) return;
      this.me.name = name.trim();
      await kvSet('identity', this.me);
    }
    this.reseat(seat);
  }

  async bot(seat) {
    const reply = await fetch(`/api/tables/${this.tableId}/bots`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seat }) });
    if (!reply.ok) status((await reply.json()).error, true);
  }
}

// ---- start ------------------------------------------------------------------------------------------------------
let current = null;
async function route() {
  const me = await identity();
  $('#me').replaceChildren(h('input', { id: 'name', value: me.name, maxlength: 24, placeholder: t('name'),
    on: { change: async (ev) => { me.name = ev.target.value.trim(); await kvSet('identity', me); } } }));
  if (current) { current.closed = true; current.ws.onclose = null; current.ws.close(); current = null; }
  const id = location.hash.slice(1);
  if (id) { current = new TableClient(me, id); current.connect(null); } else await lobby(me);
}

$('#lang').textContent = lang === 'ru' ? 'EN' : 'RU';
$('#lang').addEventListener('click', () => {
  lang = lang === 'ru' ? 'en' : 'ru';
  localStorage.setItem('fairdeal-lang', lang);
  location.reload();
});
window.addEventListener('hashchange', route);
route();
