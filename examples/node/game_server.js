// A game server for one Hi-Lo table, in Node.js: watches the table, takes a HIGH bet at the
// first price it sees open, settles it once its round has a result (or the table closes), and
// quotes a shoe state with no table. Each step prints one JSON line.
//
//   npm ci && node game_server.js --target 127.0.0.1:50051 --table node-demo
'use strict';

const { grpc, connect, call, options } = require('./pricing');

const say = (line) => console.log(JSON.stringify(line));

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The table's states from now on; a table not open yet (NOT_FOUND) is asked for again, for up
// to ten seconds, as a game server started before the dealer's feed would.
async function* watchWhenOpen(reads, table) {
  for (let attempt = 0; ; attempt += 1) {
    const watch = reads.WatchTable({ table_id: table });
    try {
      for await (const state of watch) yield state;
      return;
    } catch (err) {
      if (err.code !== grpc.status.NOT_FOUND || attempt >= 100) throw err;
    }
    await pause(100);
  }
}

async function main() {
  const { target, table } = options(process.argv, { table: 'node-demo' });
  const { reads } = connect(target);

  const quote = await call(reads, 'Quote', { game: 'GAME_HILO', exposed: ['AS', 'KD'] });
  const seven = quote.prices.find((price) => price.bet === 'SEVEN');
  say({ step: 'quote', bet: seven.bet, wins: seven.wins, remaining: seven.remaining,
    payout_hundredths: seven.payout_hundredths });

  let bet = null; // {round_id, version}: where the bet was accepted
  let ended = false;
  let watching = false;
  for await (const state of watchWhenOpen(reads, table)) {
    if (!watching) {
      watching = true;
      say({ step: 'watching', table, version: state.version });
    }
    const high = state.prices.find((price) => price.bet === 'HIGH');
    if (bet === null && state.phase === 'PHASE_BETTING' && high && high.open) {
      bet = { round_id: state.round_id, version: state.version };
      say({ step: 'bet', bet: 'HIGH', ...bet, payout_hundredths: high.payout_hundredths });
    }
    // Every state that ends a round reaches every watcher, however slow: the result is seen.
    if (bet !== null && state.ended_round && state.ended_round.round_id === bet.round_id) ended = true;
    if (state.phase === 'PHASE_CLOSED') break;
  }
  if (bet === null) throw new Error('the table closed before a round was open for betting');
  const settlement = await call(reads, 'Settle', {
    table_id: table, round_id: bet.round_id, version: bet.version, bet: 'HIGH', stake_cents: '1000',
  });
  say({ step: 'settled', ended, status: settlement.status, returned_cents: settlement.returned_cents,
    payout_hundredths: settlement.payout_hundredths, result_card: settlement.result_card });
}

main().catch((err) => {
  console.error(`game server: ${err.details || err.message}`);
  process.exit(1);
});
