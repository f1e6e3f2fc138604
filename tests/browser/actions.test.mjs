// The game actions: draw offers (declined, then accepted), resignation with
// its confirmation, abort, and draw claims (with a move and without).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, invite, join, twoPlayers, waitText,
} from './lib.mjs';

async function newGame(a, b, server) {
    await a.page.goto(`${server.base}/`);
    await waitText(a.page, '#conn-text', /^Online$/);
    const link = await invite(a.page, { preset: '15-10', color: 'white' });
    await join(b.page, link);
    await waitText(a.page, '#status', /^Your move$/);
}

test('draw offers, resignation, abort, draw claims', { timeout: 240000 },
     async (t) => {
    const { server, a, b } = await twoPlayers(t);

    await t.test('draw offer declined, then accepted', async () => {
        await newGame(a, b, server);
        await clickMove(a.page, 'e2e4');
        await clickMove(b.page, 'e7e5');
        await a.page.click('#draw-btn');
        await waitText(a.page, '#draw-btn', /^Draw offered$/);
        assert.ok(await a.page.locator('#draw-btn').isDisabled());
        await waitText(b.page, '#offer-panel', /Your opponent offers a draw/);
        await b.page.click('#decline-draw-btn');
        await waitText(a.page, '.toast', /Your draw offer was declined/);
        assert.equal(await b.page.locator('.toast', { hasText: 'declined' })
            .count(), 0, 'only the offerer hears of the decline');
        await waitText(a.page, '#draw-btn', /^Offer draw$/);
        assert.ok(await b.page.locator('#offer-panel').isHidden());
        // after a declined offer, the next one only after a move of ours
        assert.ok(await a.page.locator('#draw-btn').isDisabled());
        await clickMove(a.page, 'g1f3');
        await a.page.waitForSelector('#draw-btn:not([disabled])');

        await a.page.click('#draw-btn');
        await waitText(b.page, '#offer-panel', /Your opponent offers a draw/);
        await b.page.click('#accept-draw-btn');
        for (const p of [a, b]) {
            await waitText(p.page, '#end-title', /^Draw$/);
            await waitText(p.page, '#end-reason', /^Draw by agreement\.$/);
        }
    });

    await t.test('resignation asks first', async () => {
        await newGame(a, b, server);
        await clickMove(a.page, 'd2d4');
        await clickMove(b.page, 'd7d5');
        await b.page.click('#resign-btn');
        await confirm(b.page, false);
        await waitText(b.page, '#status', /^Waiting for your opponent to move$/);
        assert.ok(await b.page.locator('#end-panel').isHidden());
        await b.page.click('#resign-btn');
        await confirm(b.page, true);
        await waitText(a.page, '#end-title', /^You won$/);
        await waitText(a.page, '#end-reason', /^Black resigned\. White wins\.$/);
        await waitText(b.page, '#end-title', /^You lost$/);
    });

    await t.test('abort before both sides moved', async () => {
        await newGame(a, b, server);
        await clickMove(a.page, 'c2c4');
        assert.ok(await b.page.locator('#abort-btn').isVisible());
        await b.page.click('#abort-btn');
        for (const p of [a, b]) {
            await waitText(p.page, '#end-title', /^Game aborted$/);
            await waitText(p.page, '#end-reason', /aborted/);
        }
    });

    await t.test('an invitation can be cancelled', async () => {
        await a.page.goto(`${server.base}/`);
        await waitText(a.page, '#conn-text', /^Online$/);
        const link = await invite(a.page, { preset: '3-0', color: 'black' });
        await a.page.click('#cancel-invite-btn');
        await waitText(a.page, '#end-title', /^Invitation cancelled$/);
        // The link no longer offers a seat.
        await b.page.goto(link);
        await waitText(b.page, '#conn-text', /^Online$/);
        await waitText(b.page, '#end-title', /^Invitation cancelled$/);
        await waitText(b.page, '#end-reason',
                       /^The invitation was cancelled before anyone joined\.$/);
        assert.ok(await b.page.locator('#join-panel').isHidden());
    });

    await t.test('threefold: claim offered with a move, then claimed',
                 async () => {
        await newGame(a, b, server);
        const dance = [[a, 'g1f3'], [b, 'g8f6'], [a, 'f3g1'], [b, 'f6g8'],
                       [a, 'g1f3'], [b, 'g8f6'], [a, 'f3g1']];
        for (const [p, uci] of dance)
            await clickMove(p.page, uci);
        // Black's next move repeats the start position a third time: the
        // page offers to claim with it (a switch, off) and B just plays it,
        // with no dialog in between.
        await b.page.locator('#claim-with:not([hidden])').waitFor();
        await clickMove(b.page, 'f6g8');
        assert.ok(await b.page.locator('#confirm').evaluate((d) => !d.open));
        await waitText(a.page, '#moves', /Ng8/);
        // Now White may claim without a move.
        await a.page.locator('#claim-btn:not([hidden])').waitFor();
        await a.page.click('#claim-btn');
        for (const p of [a, b]) {
            await waitText(p.page, '#end-title', /^Draw$/);
            await waitText(p.page, '#end-reason',
                           /^Draw claimed: the same position occurred three times\.$/);
        }
    });

    await t.test('moves by keyboard; no claim without repetition',
                 async () => {
        await newGame(a, b, server);
        assert.ok(await a.page.locator('#claim-btn').isHidden());
        // e2 is the board's tab stop; Enter picks the pawn up, the arrows
        // walk to e4, Enter puts it down.
        await a.page.locator('#board [data-sq="12"].movable').waitFor();
        await a.page.focus('#board [data-sq="12"]');
        await a.page.keyboard.press('Enter');
        await a.page.locator('#board [data-sq="12"].selected').waitFor();
        await a.page.keyboard.press('ArrowUp');
        await a.page.keyboard.press('ArrowUp');
        await a.page.keyboard.press('Enter');
        await waitText(b.page, '#moves', /^1\.e4$/);
        await clickMove(b.page, 'e7e5');
        assert.ok(await a.page.locator('#claim-btn').isHidden());
        await a.page.click('#resign-btn');
        await confirm(a.page, true);
        await waitText(b.page, '#end-reason', /^White resigned\. Black wins\.$/);
    });

    assertClean(t, a, b);
});
