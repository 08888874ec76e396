// A card reader for one Hi-Lo table, in Node.js: opens the table, deals its five opening burns
// on one Feed stream, two result cards as calls of their own, shows a refused event and what
// its error says, then closes the table. Each step prints one JSON line.
//
//   npm ci && node card_reader.js --target 127.0.0.1:50051 --table node-demo [--watchers 1]
'use strict';

const { connect, call, errorInfo, codeName, options } = require('./pricing');

const say = (line) => console.log(JSON.stringify(line));

// Events on one Feed stream: each request is answered, in order, with the table as of it.
function feed(dealer, requests) {
  return new Promise((resolve, reject) => {
    const stream = dealer.Feed();
    const answers = [];
    stream.on('data', (state) => {
      answers.push(state);
      if (answers.length === requests.length) stream.end();
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(answers));
    for (const request of requests) stream.write(request);
  });
}

async function main() {
  const { target, table, watchers } = options(process.argv, { table: 'node-demo', watchers: '0' });
  const { dealer, reads } = connect(target);

  // OpenTable again with the same rules returns the table as it is: carry on from last_seq.
  const opened = await call(dealer, 'OpenTable', { table_id: table, game: 'GAME_HILO' });
  let seq = Number(opened.last_seq);
  say({ step: 'opened', table, version: opened.version, phase: opened.phase });

  // --watchers N: deal once N game servers watch the table (the lobby counts them).
  for (let waited = 0; ; waited += 1) {
    const { tables } = await call(reads, 'ListTables', {});
    const summary = tables.find((t) => t.table_id === table);
    if (!summary || summary.watchers >= Number(watchers)) break;
    if (waited >= 100) throw new Error(`fewer than ${watchers} watchers after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const burns = ['2S', '3S', '4S', '5S', '6S'].map((card) => ({
    expose_card: { table_id: table, seq: String(++seq), card, role: 'CARD_ROLE_BURN' },
  }));
  const answers = await feed(dealer, burns);
  const last = answers[answers.length - 1];
  say({ step: 'burnt', answers: answers.length, version: last.version, phase: last.phase });

  for (const card of ['KH', '9D']) {
    const state = await call(dealer, 'ExposeCard', {
      table_id: table, seq: String(++seq), card, role: 'CARD_ROLE_RESULT',
    });
    say({ step: 'result', card, version: state.version, round_id: state.round_id });
  }

  // A seq that skips one is refused, and nothing changes: the error says what was expected.
  try {
    await call(dealer, 'ExposeCard', { table_id: table, seq: String(seq + 2), card: '2C', role: 'CARD_ROLE_BURN' });
    say({ step: 'refused', code: 'OK' });
  } catch (err) {
    say({ step: 'refused', code: codeName(err), details: err.details, error_info: errorInfo(err) });
  }

  const closed = await call(dealer, 'CloseTable', { table_id: table, seq: String(++seq) });
  say({ step: 'closed', version: closed.version, phase: closed.phase });
}

main().catch((err) => {
  console.error(`card reader: ${err.details || err.message}`);
  process.exit(1);
});
