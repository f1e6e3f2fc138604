// A promotion through the picker, in a game that starts from a set-up
// position given to the invitation.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, choosePromotion, invite, join, moveCount, sanList, sq,
    twoPlayers, waitPiece, waitText,
} from './lib.mjs';

const FEN = '8/P7/7k/8/8/8/8/K7 w - - 0 1';

test('promotion through the picker', { timeout: 120000 }, async (t) => {
    const { a, b } = await twoPlayers(t, { b: { phone: true } });

    // A position the rules core refuses: the server's reason is shown and
    // the page stays in the lobby.
    await a.page.click('#invite-btn');
    await a.page.click('.fen-box summary');
    await a.page.fill('#fen', '8/8/8/8/8/8/8/8 w - - 0 1');
    await a.page.click('label[for="tc-5-3"]');
    await waitText(a.page, '.toast.error', /The server refused a request: ./);
    assert.equal(new URL(a.page.url()).pathname, '/');
    await a.page.fill('#fen', '');
    await a.page.click('.fen-box summary');

    const link = await invite(a.page, { preset: '5-3', color: 'white',
                                        fen: FEN });
    await waitPiece(a.page, 'a7', 'white pawn');
    await join(b.page, link);
    await waitPiece(b.page, 'a7', 'white pawn');
    await waitPiece(b.page, 'h6', 'black king');
    await waitText(a.page, '#status', /^Your move$/);

    // The picker offers exactly the four pieces; cancelling keeps the pawn.
    await a.page.locator(`${sq('a7')}.movable`).waitFor();
    await a.page.click(sq('a7'));
    await a.page.click(sq('a8'));
    await a.page.locator('.promo:not([hidden])').waitFor();
    assert.deepEqual(
        await a.page.locator('.promo button.promo-choice')
            .evaluateAll((bs) => bs.map((x) => x.getAttribute('aria-label'))),
        ['Promote to queen', 'Promote to knight', 'Promote to rook',
         'Promote to bishop']);
    await a.page.click('.promo-cancel');
    assert.ok(await a.page.locator('.promo').isHidden());
    assert.equal(await moveCount(a.page), 0);
    await waitPiece(a.page, 'a7', 'white pawn');

    // Now promote to a queen.
    await a.page.click(sq('a7'));
    await a.page.click(sq('a8'));
    await choosePromotion(a.page, 'q');
    await waitPiece(a.page, 'a8', 'white queen');
    await waitPiece(b.page, 'a8', 'white queen');
    await waitPiece(b.page, 'a7', 'empty');
    await waitText(b.page, '#moves', /a8=Q/);
    assert.deepEqual(await sanList(a.page), ['a8=Q']);
    // The move list numbers from the FEN's move number.
    assert.equal((await a.page.locator('.move-no').first().textContent()),
                 '1.');
    await waitText(b.page, '#status', /^Your move$/);

    assertClean(t, a, b);
});
