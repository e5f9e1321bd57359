// The page around the verifier: files in (drop, pick a file or a folder), pins, the verdict in plain English
// and Russian. Every text from a file is set as text, never as HTML.
(function () {
  'use strict';
  const V = globalThis.FairdealVerifier;
  const given = new Map();
  let pinnedRoster = null;
  const $ = (id) => document.getElementById(id);

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function add(fileList) {
    for (const file of fileList) {
      given.set(file.webkitRelativePath || file.name, new Uint8Array(await file.arrayBuffer()));
    }
    $('files').textContent = `${given.size} file(s) / файлов: ` + [...given.keys()].join(', ');
  }

  function both(list, en, ru) {
    const item = element('li');
    item.append(element('span', '', en), element('br'), element('span', 'ru', ru));
    list.append(item);
  }

  function sessionLines(list, s) {
    const range = s.hands.length ? `${Math.min(...s.hands)}–${Math.max(...s.hands)}` : '—';
    const where = `table ${s.table}, session ${s.session}, ${s.system}, ${s.seats.join(', ')}`;
    const gde = `стол ${s.table}, сессия ${s.session}, ${s.system}, ${s.seats.join(', ')}`;
    both(list, `${where}: the roster is signed by the service and by every seated player.`,
      `${gde}: список участников подписан сервисом и каждым игроком.`);
    both(list, `Every message of hands ${range} is signed by its sender and chained to the one before: none is forged, missing, reordered or replayed.`,
      `Каждое сообщение раздач ${range} подписано отправителем и сцеплено с предыдущим: ничего не подделано, не пропущено, не переставлено и не повторено.`);
    both(list, "Each player's seed opens the commitment that player signed before any seed was shown; the service's seed opens its commitment, fixed in the chain anchored when the session opened, so no one could choose the deck after seeing the others' seeds.",
      'Зерно каждого игрока открывает его подписанное обязательство, сделанное до раскрытия чужих зёрен; зерно сервиса открывает его обязательство из цепочки, закреплённой при открытии сессии: никто не мог выбрать колоду, увидев чужие зёрна.');
    both(list, 'Each deck order is derived byte for byte from the seeds (SHAKE256, unbiased Fisher–Yates) and dealt by the system\'s deal pattern; the hands and the talon are what the pattern gives.',
      'Порядок каждой колоды получен из зёрен байт в байт (SHAKE256, несмещённая тасовка Фишера–Йетса) и сдан по схеме сдачи системы; руки и прикуп — ровно те, что даёт схема.');
    if (s.replayed) {
      both(list, "Every seated player countersigned each hand's record, and each record replays through fairdeal's own engine, run in this page: it is the verified deal; every bid, talon, discard, whist and card is legal under the convention (house rules applied); the tricks, the result and the score lines are the engine's; the settlement amounts are the replayed sheet's.",
        'Каждый игрок подписал запись каждой раздачи, и каждая запись переиграна движком fairdeal прямо на этой странице: она совпадает с проверенной сдачей; каждая заявка, прикуп, снос, вист и карта разрешены соглашением (с домашними правилами); взятки, результат и записи в пулю — те, что даёт движок; суммы расчёта — по переигранной пуле.');
    } else {
      both(list, "Every seated player countersigned each hand's record; each record is the verified deal and conserves the cards (no card played twice, none both discarded and played).",
        'Каждый игрок подписал запись каждой раздачи; запись совпадает с проверенной сдачей, и карты сохраняются (ни одна не сыграна дважды, ни одна не оказалась и в сносе, и во взятке).');
    }
    if (s.pinned) {
      both(list, 'The identities you pinned (the roster file, or a public key per seat) are the ones that signed: the holders of those keys took part. A pin proves this only if you had it from the players themselves (your own copy of the roster you signed, a key a player gave you), not from the files the service published.',
        'Закреплённые вами ключи (файл roster.json или открытый ключ места) — те самые, что подписывали: играли владельцы этих ключей. Это доказательство, только если вы получили их от самих игроков (ваша копия подписанного вами списка, ключ, который дал игрок), а не из файлов, опубликованных сервисом.');
    }
    const gone = s.unsigned.join(', ');
    const [but, butRu] = gone ? [` but ${gone} (absent, or dropped by the relay; no amount depends on it)`, ` кроме ${gone} (не ответил или подпись потеряна ретранслятором; ни одна сумма от этого не зависит)`] : ['', ''];
    if (s.ended) {
      const who = s.ended.charged.join(', ');
      const whys = { refusal: ['a refusal', 'отказ подписать'], abort: ['its opening aborted three times', 'раздача трижды прервана'] };
      const [why, whyRu] = whys[s.ended.step] || ['a countersignature not sent', 'неподписанная запись'];
      both(list, `The evening ended early at hand ${s.ended.hand} (${why}): that hand is void; the evidence proves ${who || 'no seat'} at fault and the service's signed end charges exactly ${who || 'no one'} (the convention's abort penalty, once per abort); the settlement closes the hands before it and every other player${but} countersigned it.`,
        `Вечер окончен досрочно на раздаче ${s.ended.hand} (${whyRu}): эта раздача аннулирована; доказательства показывают вину: ${who || 'ничья'}, и подписанное сервисом окончание штрафует ровно ${who || 'никого'} (штраф за уход по соглашению, за каждый обрыв); расчёт закрывает раздачи до неё и подписан всеми остальными игроками${butRu}.`);
    } else if (s.settled) {
      both(list, `The settlement is signed by the service, countersigned by every player${but} and closes exactly these hands.`,
        `Итоговый расчёт подписан сервисом и каждым игроком${butRu} и закрывает ровно эти раздачи.`);
    } else {
      both(list, 'No signed settlement was given: the session may go on after these hands.',
        'Подписанного расчёта нет: сессия могла продолжиться после этих раздач.');
    }
    if (s.log) {
      both(list, 'The game log cites every transcript by its SHA-256, copies each record exactly and states the signed settlement.',
        'Журнал ссылается на каждый протокол по SHA-256, дословно повторяет каждую запись и указывает подписанный расчёт.');
    }
  }

  function pokerLines(list, count) {
    both(list, `Mental poker (${count} hand(s)): every message is signed by its sender under the roster and chained to the one before; each key share carries its proof of possession; each player's shuffle carries a Terelius–Wikström proof that it permutes and re-encrypts the deck; every card opened carries Chaum–Pedersen proofs that each decryption share used its player's key; the published deal is what the messages decrypt to, and every seated player signed the record.`,
      `Mental poker (раздач: ${count}): каждое сообщение подписано отправителем по списку участников и сцеплено с предыдущим; у каждой доли ключа есть доказательство владения; каждая тасовка игрока доказана (Терелиус–Викстрём): колода переставлена и перешифрована; каждая открытая карта снабжена доказательствами Чаума–Педерсена, что каждая доля расшифровки сделана ключом её игрока; опубликованная сдача — та, что дают сообщения, и каждый игрок подписал запись.`);
  }

  // A mental-poker evening that ended early (report.mentalPokerEnd: what the voided hand proves).
  function pokerEndLine(list, end) {
    const who = end.charged.join(', ');
    both(list, `The mental-poker evening ended early at hand ${end.hand}: that hand is void; its own messages prove ${who || 'no seat'} at fault (a walk-away or a refusal); every other player signed the settlement with exactly that end, and the log's end charges ${who || 'no one'} the convention's abort penalty and the settlement closes the hands before it.`,
      `Вечер mental poker окончен досрочно на раздаче ${end.hand}: эта раздача аннулирована; её собственные сообщения доказывают вину: ${who || 'ничья'} (уход или отказ); все остальные игроки подписали расчёт ровно с этим окончанием, журнал штрафует ${who || 'никого'} штрафом за уход по соглашению, а расчёт закрывает раздачи до неё.`);
  }

  function limits(list, report) {
    if (!report.pinned) {
      both(list, 'Identities are NOT pinned: the keys checked are the ones the files state, so one program could have played every seat. Give your own copy of the roster you signed, or paste each seat\'s public key, to know who took part.',
        'Участники НЕ закреплены: проверены ключи, указанные в самих файлах, — одна программа могла играть за всех. Добавьте подписанный вами roster.json или вставьте открытый ключ каждого места.');
    }
    if (!report.replayed) {
      both(list, 'Not checked by this page: who played which card, following suit and trumping, the auction, the contract, the result, the score lines and the settlement amounts. Every seated player\'s countersignature covers them; `fairdeal verify` replays them.',
        'Эта страница не проверяет: кто какой картой ходил, обязанность ходить в масть и козырять, торговлю, контракт, результат, записи и суммы расчёта. Их покрывают подписи всех игроков; `fairdeal verify` переигрывает их.');
    }
    both(list, 'The commit-reveal service sees every card as it deals: the protocol proves the deck was not chosen, not that the service kept the cards secret.',
      'Сервис commit-reveal видит все карты при сдаче: протокол доказывает, что колоду не выбирали, но не то, что сервис хранил карты в тайне.');
    if (report.mentalPoker && report.replayed) {
      both(list, 'Mental poker: this page replays each record through the engine (legality, result, score lines), but does not compare it step by step with the messages (that each card played is the one the messages opened, the talon and discard the record names, the penalty a hand line charges for an aborted attempt); every player\'s signature on the record covers them, and `fairdeal verify` checks them.',
        'Mental poker: эта страница переигрывает каждую запись движком (законность ходов, результат, записи в пулю), но не сверяет её шаг за шагом с сообщениями (что сыгранная карта — та, что открыли сообщения, прикуп и снос в записи, штраф в строке раздачи за прерванную попытку); их покрывают подписи всех игроков на записи, `fairdeal verify` их проверяет.');
    } else if (report.mentalPoker) {
      both(list, 'Mental poker: this page does not replay the game record through the rules (who played which card, the talon and discard the record names, the penalty a hand line charges for an aborted attempt); every player\'s signature on the record covers them, and `fairdeal verify` replays them.',
        'Mental poker: эта страница не переигрывает запись раздачи по правилам (кто какой картой ходил, прикуп и снос в записи, штраф в строке раздачи за прерванную попытку); их покрывают подписи всех игроков на записи, `fairdeal verify` их переигрывает.');
    }
  }

  function show(report) {
    const verdict = $('verdict');
    const out = $('report');
    out.replaceChildren();
    if (report.usage) {
      verdict.className = 'bad';
      verdict.dataset.ok = 'false';
      verdict.textContent = `Error: ${report.usage}`;
      return;
    }
    verdict.dataset.ok = String(report.ok);
    if (report.ok) {
      verdict.className = 'ok';
      verdict.textContent = `VERIFIED: ${report.transcripts} document(s) / ПРОВЕРЕНО: документов — ${report.transcripts}`;
      if (report.unverified.length) {
        verdict.textContent += ` (${report.unverified.length} item(s) not verified here, see the notes / не проверено здесь: ${report.unverified.length}, см. заметки)`;
      }
    } else if (!report.failures.length) {
      verdict.className = 'none';
      verdict.textContent = 'Nothing this page verifies was given / Нет файлов, которые эта страница проверяет';
    } else {
      verdict.className = 'bad';
      verdict.textContent = `NOT VERIFIED: ${report.failures.length} problem(s) / НЕ ПРОВЕРЕНО: проблем — ${report.failures.length}`;
    }
    if (report.failures.length) {
      out.append(element('h2', '', 'Problems / Проблемы'));
      const list = element('ul');
      for (const f of report.failures) {
        const hand = f.hand === null || f.hand === undefined ? '' : ` hand ${f.hand}`;
        list.append(element('li', 'failure', `${f.source}${hand}: ${f.party}: ${f.check}: ${f.detail}`));
      }
      out.append(list);
    }
    if (report.ok) {
      out.append(element('h2', '', 'What this proves / Что доказано'));
      const list = element('ul');
      report.proved.forEach((s) => sessionLines(list, s));
      if (report.mentalPoker) pokerLines(list, report.mentalPoker);
      if (report.mentalPokerEnd) pokerEndLine(list, report.mentalPokerEnd);
      out.append(list);
    }
    out.append(element('h2', '', 'What this does not prove / Что не доказано'));
    const list = element('ul');
    limits(list, report);
    out.append(list);
    const extra = [...report.unverified, ...report.notes, ...report.caveats];
    if (extra.length) {
      out.append(element('h2', '', 'Notes / Заметки'));
      const notes = element('ul');
      for (const text of extra) notes.append(element('li', 'note', text));
      out.append(notes);
    }
  }

  // The engine (Pyodide and fairdeal's modules) boots once, on the first run; a page where it cannot start still
  // checks everything else and says that the records were not replayed.
  async function engine() {
    $('verdict').className = 'none';
    $('verdict').textContent = 'Starting the game engine (once, a few seconds) / Запуск игрового движка (один раз, несколько секунд)…';
    try {
      return { replayer: await globalThis.FairdealEngine.load(V.encode), failure: null };
    } catch (error) {
      return { replayer: null, failure: error.message };
    }
  }

  // libsodium's wasm (mental poker) compiles asynchronously after load; a run waits for it, in the order asked.
  async function run() {
    try {
      await globalThis.fairdealReady;
      const { replayer, failure } = await engine();
      const inputs = [...given.entries()].map(([name, bytes]) => ({ name, bytes }));
      const report = V.verifyFiles(inputs, $('pins').value, pinnedRoster, replayer);
      if (failure !== null) report.caveats.push(`records not replayed: the page's engine did not start (${failure}); fairdeal verify replays them`);
      show(report);
    } catch (error) {
      show({ usage: `the page could not finish: ${error.message}` });
    }
  }

  const drop = $('drop');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  // A dropped folder arrives as an entry to walk; its files keep their paths (the log cites them by name).
  function filesOf(entry) {
    if (entry.isFile) return new Promise((resolve, reject) => entry.file((f) => resolve([f]), reject));
    const reader = entry.createReader();
    return new Promise((resolve, reject) => {
      const found = [];
      const more = () => reader.readEntries(async (batch) => {
        if (!batch.length) { resolve(found); return; }
        for (const child of batch) found.push(...(await filesOf(child)));
        more();
      }, reject);
      more();
    });
  }
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const entries = [...e.dataTransfer.items].map((item) => item.webkitGetAsEntry && item.webkitGetAsEntry()).filter(Boolean);
    const files = [];
    for (const entry of entries) files.push(...(await filesOf(entry)));
    await add(entries.length ? files : e.dataTransfer.files);
    run();
  });
  for (const id of ['pick', 'folder']) $(id).addEventListener('change', async (e) => { await add(e.target.files); run(); });
  $('roster').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    pinnedRoster = file ? { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) } : null;
    run();
  });
  $('run').addEventListener('click', run);
  $('pins').addEventListener('change', run);
})();
