// A move that allows a draw claim is never held back (issue 14): no dialog
// between choosing it and sending it; the opponent may claim after it, and
// a non-modal switch claims with the move instead. The games start from a
// FEN with 99 half-moves without a capture or pawn move, so every quiet
// move allows a 50-move claim.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, invite, join, logWebSocket, twoPlayers, waitText,
    wsMessages,
} from './lib.mjs';

const FEN = '8/8/8/4k3/8/8/8/R3K3 w - - 99 80';
const FIFTY = new RegExp('^Draw claimed: 50 moves by each side without a ' +
                         'capture or a pawn move\\.$');

// Notes in window.confirmOpened whether the confirmation dialog ever opens.
async function watchDialog(page) {
    await page.evaluate(() => {
        const dlg = document.getElementById('confirm');
        window.confirmOpened = dlg.open;
        new MutationObserver(() => {
            if (dlg.open)
                window.confirmOpened = true;
        }).observe(dlg, { attributes: true });
    });
}

async function newGame(a, b, server) {
    await a.page.goto(`${server.base}/`);
    await waitText(a.page, '#conn-text', /^Online$/);
    const link = await invite(a.page, { preset: '3-0', color: 'white',
                                        fen: FEN });
    await join(b.page, link);
    await waitText(a.page, '#status', /^Your move$/);
    await watchDialog(a.page);
}

test('a move that allows a draw claim is sent at once', { timeout: 120000 },
     async (t) => {
    const { server, a, b } = await twoPlayers(
        t, { a: { beforeGoto: logWebSocket } });

    await t.test('played without a dialog; the opponent claims after it',
                 async () => {
        await newGame(a, b, server);
        // The switch is offered, off; the move goes out as a plain move.
        await a.page.locator('#claim-with:not([hidden])').waitFor();
        assert.equal(await a.page.isChecked('#claim-with-move'), false);
        await clickMove(a.page, 'a1a2');
        assert.equal(await a.page.evaluate(() => window.confirmOpened), false,
                     'no dialog before the move');
        const sent = (await wsMessages(a.page, 'out', 'move'))
            .map((e) => e.msg.uci);
        assert.deepEqual(sent, ['a1a2']);
        assert.equal((await wsMessages(a.page, 'out', 'draw_claim')).length,
                     0);
        // Now Black, to move, may claim: the button is there, no dialog.
        await b.page.locator('#claim-btn:not([hidden])').waitFor();
        await b.page.click('#claim-btn');
        for (const p of [a, b]) {
            await waitText(p.page, '#end-title', /^Draw$/);
            await waitText(p.page, '#end-reason', FIFTY);
        }
    });

    await t.test('claimed with the move through the switch', async () => {
        await newGame(a, b, server);
        await a.page.locator('#claim-with:not([hidden])').waitFor();
        await a.page.check('#claim-with-move');
        await a.page.locator('#game.my-turn #board [data-sq="0"].movable')
            .waitFor();
        await a.page.click('#board [data-sq="0"]');      // a1
        await a.page.click('#board [data-sq="8"]');      // a2
        for (const p of [a, b]) {
            await waitText(p.page, '#end-title', /^Draw$/);
            await waitText(p.page, '#end-reason', FIFTY);
        }
        assert.equal(await a.page.evaluate(() => window.confirmOpened), false,
                     'no dialog before the move');
        const claims = await wsMessages(a.page, 'out', 'draw_claim');
        assert.equal(claims.length, 1);
        assert.equal(claims[0].msg.uci, 'a1a2');
        await waitText(a.page, '#moves', /Ra2/);
    });

    assertClean(t, a, b);
});
