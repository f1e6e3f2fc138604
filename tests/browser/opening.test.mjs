// The opening above the board (issue 28 item 3): named after the first
// move, kept out of theory, renamed by a transposition, for the players
// and a spectator who arrives late, and after the end. Copy FEN and Copy
// PGN (item 4): what reaches the clipboard, read back through the
// Clipboard API with the page's permissions granted (Chromium's own
// clipboard, no hidden field): the live position's FEN, a browsed one's,
// and the PGN exactly as GET /api/games/GID/pgn serves it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, invite, join, openPlayer, screenshot,
    twoPlayers, waitText,
} from './lib.mjs';

// What the page's Clipboard API reads back.
function clipboard(page) {
    return page.evaluate(() => navigator.clipboard.readText());
}

// Clicks `button` and waits for its toast; returns the clipboard's text.
async function copied(page, button, toast) {
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await page.click(button);
    await waitText(page, '#toasts', toast);
    return clipboard(page);
}

test('the opening above the board; copying the FEN and the PGN',
     { timeout: 120000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t);
    await a.ctx.grantPermissions(['clipboard-read', 'clipboard-write'],
                                 { origin: server.base });
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    const gid = link.split('/g/')[1];

    // No name before the first move.
    assert.ok(await a.page.locator('#opening').isHidden());
    await clickMove(a.page, 'c2c4');
    await waitText(a.page, '#opening', /^A10 English Opening$/);
    await waitText(b.page, '#opening', /^A10 English Opening$/);
    // above the board, after the time control
    const box = await a.page.locator('#opening').boundingBox();
    const board = await a.page.locator('#board').boundingBox();
    assert.ok(box.y + box.height <= board.y,
              `the opening (y ${box.y}) is above the board (y ${board.y})`);
    await waitText(a.page, '#kind-text', /^Casual blitz · 5\+3$/);

    await clickMove(b.page, 'e7e6');
    await waitText(a.page, '#opening',
                   /^A13 English Opening: Agincourt Defense$/);
    // 2. Nc3 d5 name nothing new: the name stays
    await clickMove(a.page, 'b1c3');
    await clickMove(b.page, 'd7d5');
    await waitText(b.page, '#opening',
                   /^A13 English Opening: Agincourt Defense$/);
    // 3. d4 transposes into the Queen's Gambit Declined (written 1. d4
    // d5 2. c4 e6 3. Nc3)
    await clickMove(a.page, 'd2d4');
    const qgd = /^D31 Queen's Gambit Declined: Queen's Knight Variation$/;
    await waitText(a.page, '#opening', qgd);
    await waitText(b.page, '#opening', qgd);
    assert.equal(await a.page.getAttribute('#opening', 'title'),
                 "D31 Queen's Gambit Declined: Queen's Knight Variation");

    // A spectator who comes now gets it with the state.
    const c = await openPlayer(browser, link);
    await waitText(c.page, '#opening', qgd);

    // Copy FEN: the position shown, the live one (the server's FEN) ...
    assert.equal(await copied(a.page, '#copy-fen-btn', /FEN copied\./),
                 'rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq ' +
                 '- 0 3');
    // ... and one browsed back to (after 2. Nc3)
    await a.page.click('#nav-prev');
    await a.page.click('#nav-prev');
    await waitText(a.page, '#status', /\(viewing 2\. Nc3, move 2 of 3\)$/);
    assert.equal(await copied(a.page, '#copy-fen-btn', /FEN copied\./),
                 'rnbqkbnr/pppp1ppp/4p3/8/2P5/2N5/PP1PPPPP/R1BQKBNR b KQkq ' +
                 '- 1 2');
    await a.page.click('#nav-last');
    await screenshot(a.page, 'opening-desktop.png');

    // Copy PGN: the server's export, with ECO and Opening.
    const pgn = await copied(a.page, '#copy-pgn-btn', /PGN copied\./);
    const served = await (await fetch(
        `${server.base}/api/games/${gid}/pgn`)).text();
    assert.equal(pgn, served);
    assert.match(pgn, /\n\[ECO "D31"\]\n\[Opening "Queen's Gambit Declined: Queen's Knight Variation"\]\n/);
    // (the PGN wraps at 80 columns: where depends on the [%lag] comments)
    assert.match(pgn, /\n1\. c4 .*\s3\. d4\s.*\*\n$/s);

    // After the end the name stays above the board.
    await a.page.click('#resign-btn');
    await confirm(a.page, true);
    await waitText(b.page, '#end-title', /^You won$/);
    await waitText(b.page, '#opening', qgd);
    await waitText(c.page, '#opening', qgd);
    await screenshot(c.page, 'opening-spectator.png');
    assertClean(t, a, b, c);
});
