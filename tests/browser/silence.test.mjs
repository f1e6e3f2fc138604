// A server that goes silent (paused, partitioned, a half-open connection):
// the page pings every few seconds and leaves a connection that has said
// nothing for 8 s for a new one, so a player is back in seconds; a move of
// its own left unanswered is resynced after a few seconds instead of
// leaving the board waiting (PROTOCOL.md, "Advice to clients").

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, invite, join, mutable, sleep, sq, twoPlayers,
    waitPiece, waitText,
} from './lib.mjs';

// A and B in a game after 1. e4 e5, A's WebSockets through mutable().
async function gameAfterE4E5(t) {
    let net;
    const { a, b } = await twoPlayers(t, {
        a: { beforeGoto: async (page) => { net = await mutable(page); } },
    });
    const link = await invite(a.page, { preset: '10-5', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    return { a, b, net };
}

test('a silent connection is left within seconds', { timeout: 60000 },
     async (t) => {
    const { a, b, net } = await gameAfterE4E5(t);
    const pings = net.sent.filter((m) => m.t === 'ping').length;

    const opened = net.opened;
    net.muted = opened - 1;     // A's connection says nothing from now on
    const muted = Date.now();
    while (net.opened === opened && Date.now() - muted < 20000)
        await sleep(100);
    const took = Date.now() - muted;
    assert.ok(net.opened > opened, 'the page opened a new connection');
    // 8 s of silence, then the backoff's first wait (0.5 s +-25 %)
    assert.ok(took >= 7500 && took < 10500, `left after ${took} ms`);
    console.log(`silent connection left after ${took} ms`);

    await waitText(a.page, '#conn-text', /^Online$/);
    await clickMove(a.page, 'g1f3');
    await waitPiece(b.page, 'f3', 'white knight');
    await clickMove(b.page, 'b8c6');
    await waitPiece(a.page, 'c6', 'black knight');
    // a ping every 5 s or so: a few, never a flood
    const sent = net.sent.filter((m) => m.t === 'ping').length;
    assert.ok(sent - pings >= 1 && sent - pings <= 4,
              `${sent - pings} pings in ${took} ms`);
    assertClean(t, a, b);
});

test('a move left unanswered is resynced', { timeout: 60000 },
     async (t) => {
    const { a, b, net } = await gameAfterE4E5(t);

    // A's next move is lost on its way: the server never answers it
    let dropped = 0;
    net.drop = (msg) => msg.t === 'move' && dropped++ === 0;
    const before = net.sent.length;
    const syncs = () => net.sent.slice(before).filter((m) => m.t === 'sync');
    const sent = Date.now();
    await a.page.click(sq('g1'));
    await a.page.click(sq('f3'));
    await waitPiece(a.page, 'f3', 'white knight');  // shown on its way
    while (!syncs().length && Date.now() - sent < 15000)
        await sleep(100);
    const took = Date.now() - sent;
    assert.equal(syncs().length, 1, 'the page resynced');
    assert.ok(took >= 3500 && took < 6000, `resynced after ${took} ms`);
    console.log(`unanswered move resynced after ${took} ms`);
    // the state says the move was not made: the board takes it again
    await waitPiece(a.page, 'g1', 'white knight');
    await waitText(a.page, '#status', /^Your move$/);
    await clickMove(a.page, 'g1f3');
    await waitPiece(b.page, 'f3', 'white knight');
    assertClean(t, a, b);
});
