// A dropped connection: the page says so, reconnects by itself with backoff
// and resyncs the moves it missed without a reload; the opponent sees the
// disconnection countdown. A reload resumes the same identity and game.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, cuttable, invite, join, logWebSocket, myName,
    sanList,
    screenshot, text, twoPlayers, waitPiece, waitText,
} from './lib.mjs';

test('reconnects by itself and resyncs', { timeout: 120000 }, async (t) => {
    let net;
    const { a, b } = await twoPlayers(t, {
        server: { graceS: 30 },
        a: { beforeGoto: async (page) => { net = await cuttable(page); } },
    });
    const nameA = await myName(a.page);
    const link = await invite(a.page, { preset: '10-5', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    await clickMove(a.page, 'g1f3');

    // A marker that a reload would wipe.
    await a.page.evaluate(() => { window.notReloaded = true; });

    await net.drop();
    await waitText(a.page, '#conn-text', /^Offline/);
    await waitText(a.page, '#status', /Connection lost\. Reconnecting/);
    await waitText(b.page, '#notice',
                   /^Your opponent disconnected: \d+ s to return\.$/);
    await waitText(b.page, '#bar-top .gone-tag', /^offline \d+ s$/);
    assert.ok(await a.page.locator('#resign-btn').isDisabled(),
              'no actions while offline');
    await screenshot(a.page, 'offline-desktop.png');
    await screenshot(b.page, 'opponent-gone-desktop.png');

    // B moves while A is away; A keeps retrying meanwhile.
    await clickMove(b.page, 'b8c6');
    const until = Date.now() + 10000;
    while (net.state.refused < 2 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
    assert.ok(net.state.refused >= 2, 'the page retried while offline');

    net.restore();
    await waitText(a.page, '#conn-text', /^Online$/, 30000);
    await waitPiece(a.page, 'c6', 'black knight');
    assert.deepEqual(await sanList(a.page), ['e4', 'e5', 'Nf3', 'Nc6']);
    await waitText(a.page, '#status', /^Your move$/);
    assert.ok(await a.page.locator('#resign-btn').isEnabled());
    assert.equal(await a.page.evaluate(() => window.notReloaded), true,
                 'resynced without a reload');
    await b.page.locator('#notice').waitFor({ state: 'hidden' });

    // Play goes on from the resynced position.
    await clickMove(a.page, 'f1b5');
    await waitPiece(b.page, 'b5', 'white bishop');

    // A reload resumes the same guest (saved token) in the same game.
    await a.page.reload();
    await waitText(a.page, '#conn-text', /^Online$/);
    await waitText(a.page, '#me', new RegExp(`^${nameA}$`));
    await waitText(a.page, '#bar-bottom .name', new RegExp(`^${nameA}$`));
    await waitText(a.page, '#bar-bottom .pyou', /^\(you\)$/);
    await waitPiece(a.page, 'b5', 'white bishop');
    await waitText(a.page, '#status', /^Waiting for your opponent to move$/);

    assertClean(t, a, b);
});

test('an absent player loses when the grace period ends', { timeout: 60000 },
     async (t) => {
    const { a, b } = await twoPlayers(t, { server: { graceS: 3 } });
    const link = await invite(a.page, { preset: '10-5', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'd2d4');
    await clickMove(b.page, 'd7d5');
    // A closes the tab.
    await a.ctx.close();
    await waitText(b.page, '#notice',
                   /^Your opponent disconnected: [1-3] s to return\.$/);
    await waitText(b.page, '#end-title', /^You won$/, 10000);
    await waitText(b.page, '#end-reason',
                   /^White left and did not come back in time\. Black wins\.$/);
    assertClean(t, b);
});

test('a server restart: both pages come back to the game', { timeout: 90000 },
     async (t) => {
    const { server, a, b } = await twoPlayers(t, {
        a: { beforeGoto: logWebSocket }, b: { phone: true },
    });
    const link = await invite(a.page, { preset: '15-10', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'c7c5');

    await server.restart();
    await waitText(a.page, '.toast', /The server is restarting/);
    for (const p of [a, b])
        await waitText(p.page, '#conn-text', /^Online$/, 30000);
    await waitText(a.page, '#status', /^Your move$/);
    // The notice is over once the server is back (its welcome and state
    // have come): it does not linger.
    await a.page.waitForFunction(() => {
        const log = window.wsLog;
        const down = log.findIndex((e) => e.msg.t === 'shutdown');
        return down >= 0 && log.slice(down).some((e) =>
            e.dir === 'in' && e.msg.t === 'state');
    });
    assert.equal(await a.page.locator('.toast', {
        hasText: 'The server is restarting' }).count(), 0);
    assert.deepEqual(await sanList(b.page), ['e4', 'c5']);
    await clickMove(a.page, 'g1f3');
    await waitPiece(b.page, 'f3', 'white knight');
    assertClean(t, a, b);
});

test('an unknown saved token: a new guest, and the page says so',
     { timeout: 60000 }, async (t) => {
    const { a } = await twoPlayers(t, {
        a: {
            beforeGoto: (page) => page.addInitScript(() => {
                if (!sessionStorage.getItem('seeded')) {
                    sessionStorage.setItem('seeded', '1');
                    localStorage.setItem('chess.token', 'not-a-real-token');
                }
            }),
        },
        b: null,
    });
    await waitText(a.page, '.toast.error',
                   /Your saved identity was not recognised/);
    const name = await myName(a.page);
    assert.match(name, /^Guest-/);
    const saved = await a.page.evaluate(() =>
        localStorage.getItem('chess.token'));
    assert.notEqual(saved, 'not-a-real-token');
    assert.ok(saved && saved.length >= 16, 'the new token is saved');
    // The new identity survives a reload.
    await a.page.reload();
    await waitText(a.page, '#conn-text', /^Online$/);
    await waitText(a.page, '#me', new RegExp(`^${name}$`));
    assertClean(t, a);
});
