// A spectator follows a live game by its link; a player leaving counts as
// resigning.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, invite, join, openPlayer, sanList,
    screenshot, twoPlayers, waitPiece, waitText,
} from './lib.mjs';

test('a spectator follows the moves', { timeout: 120000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t);
    const link = await invite(a.page, { preset: '5-3', color: 'white' });

    // D opens the invitation, but B joins first: D's page turns into a
    // spectator's view by itself.
    const d = await openPlayer(browser, link);
    await waitText(d.page, '#join-title', /invites you to play/);
    await join(b.page, link);
    await waitText(d.page, '#status', /^You are watching\. White to move$/);
    assert.ok(await d.page.locator('#join-panel').isHidden());
    await clickMove(a.page, 'e2e4');
    await waitPiece(d.page, 'e4', 'white pawn');

    // C opens the link of the running game.
    const c = await openPlayer(browser, link, { phone: true });
    await waitText(c.page, '#status', /^You are watching\. Black to move$/);
    await waitPiece(c.page, 'e4', 'white pawn');
    assert.ok(await c.page.locator('#controls #resign-btn').isHidden());
    assert.ok(await c.page.locator('#join-panel').isHidden());

    await clickMove(b.page, 'c7c5');
    await waitPiece(c.page, 'c5', 'black pawn');
    await clickMove(a.page, 'g1f3');
    await waitPiece(c.page, 'f3', 'white knight');
    await waitPiece(c.page, 'g1', 'empty');
    assert.deepEqual(await sanList(c.page), ['e4', 'c5', 'Nf3']);
    await screenshot(c.page, 'spectator-phone.png');
    await waitText(c.page, '#status', /^You are watching\. Black to move$/);

    // White leaves: that counts as resigning (the button says so), and
    // everyone sees it.
    await waitText(a.page, '#leave-btn', /^Resign and leave$/);
    await a.page.click('#leave-btn');
    await confirm(a.page, true);
    await a.page.waitForURL(`${server.base}/`);
    await waitText(c.page, '#end-title', /^Black wins$/);
    await waitText(c.page, '#end-reason', /^White resigned\. Black wins\.$/);
    await waitText(b.page, '#end-title', /^You won$/);
    await waitText(d.page, '#end-title', /^Black wins$/);

    // A link to no game says so (gamepage.test.mjs has more).
    await c.page.goto(`${server.base}/g/NoSuchGame0123`);
    await waitText(c.page, '#missing h1', /^No such game$/);
    assert.ok(await c.page.locator('#controls').isHidden());

    assertClean(t, a, b, c, d);
});
