// Two players pair through the lobby, see their clocks run and play to
// checkmate by clicking; screenshots of the board at desktop and phone size.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, assertPiecesDrawn, chooseLobby, clickMove, moveCount, myName,
    sanList, screenshot, sleep, sq, text, twoPlayers, waitPiece, waitText,
} from './lib.mjs';

test('lobby pairing, clocks, checkmate by clicks', { timeout: 120000 },
     async (t) => {
    const { a, b } = await twoPlayers(t, { b: { phone: true } });

    // The page runs under the server's strict security headers (any
    // violation would be a console error, which assertClean reports).
    const csp = a.response.headers()['content-security-policy'] || '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /style-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    // WebSockets to the page's own host only (CSP 3's 'self' covers ws:
    // and wss: to it), and the page connects under it
    assert.match(csp, /connect-src 'self';/);
    assert.doesNotMatch(csp, /ws:|wss:/);

    // Each context got its own guest identity.
    const guestA = await myName(a.page);
    const nameB = await myName(b.page);
    assert.match(guestA, /^Guest-[A-Za-z0-9_-]+$/);
    assert.match(nameB, /^Guest-[A-Za-z0-9_-]+$/);
    assert.notEqual(guestA, nameB);

    // A picks a name of their own; a bad one is refused in the dialog.
    await a.page.click('#rename-btn');
    await a.page.fill('#name-input', 'not ok!');
    await a.page.click('#name-ok');
    await waitText(a.page, '#name-error', /letters, digits/);
    await a.page.fill('#name-input', 'Alice_1');
    await a.page.click('#name-ok');
    await waitText(a.page, '#me', /^Alice_1$/);
    await waitText(a.page, '#conn-text', /^Online$/);
    const nameA = 'Alice_1';

    // A custom clock and the per-move preset; seeks can be cancelled.
    await a.page.click('label[for="tc-custom"]');
    await a.page.fill('#c-minutes', '2');
    await a.page.fill('#c-inc', '1');
    await waitText(a.page, '#custom-summary', /^2\+1$/);
    await a.page.click('#seek-btn');
    await waitText(a.page, '#seeking', /Looking for an opponent: 2\+1, random colour/);
    await a.page.click('#cancel-seek-btn');
    await a.page.locator('#seeking').waitFor({ state: 'hidden' });
    await chooseLobby(a.page, 'pm', 'white');
    await waitText(a.page, '#seeking', /Looking for an opponent: 1 min per move, white/);
    await a.page.click('#cancel-seek-btn');
    await a.page.locator('#seeking').waitFor({ state: 'hidden' });

    await chooseLobby(a.page, '3-2', 'white');
    await waitText(a.page, '#seeking', /Looking for an opponent: 3\+2/);
    await chooseLobby(b.page, '3-2', 'black');

    await a.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await b.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    assert.equal(new URL(a.page.url()).pathname,
                 new URL(b.page.url()).pathname);

    // Names, sides and orientation: White at the bottom for A, Black for B.
    await waitText(a.page, '#bar-bottom .name', new RegExp(`^${nameA}$`));
    await waitText(a.page, '#bar-bottom .pyou', /^\(you\)$/);
    await waitText(a.page, '#bar-top .name', new RegExp(`^${nameB}$`));
    await waitText(b.page, '#bar-bottom .name', new RegExp(`^${nameB}$`));
    await waitText(b.page, '#bar-bottom .pyou', /^\(you\)$/);
    await waitText(b.page, '#bar-top .name', new RegExp(`^${nameA}$`));
    const firstCell = (p) => p.locator('#board .row').first()
        .locator('.sq').first().getAttribute('aria-label');
    assert.match(await firstCell(a.page), /^a8, black rook$/);
    assert.match(await firstCell(b.page), /^h1, white rook$/);

    await assertPiecesDrawn(a.page);
    await assertPiecesDrawn(b.page);

    // Clocks show the full time until both sides have moved.
    await waitText(a.page, '#bar-bottom .clock', /^3:00$/);
    await waitText(b.page, '#bar-top .clock', /^3:00$/);
    await waitText(a.page, '#status', /^Your move$/);
    await waitText(b.page, '#status', /^Waiting for your opponent to move$/);
    await waitText(a.page, '#notice', /You have \d+ s to make the first move/);
    await waitText(b.page, '#notice', /White has \d+ s to make the first move/);

    await clickMove(a.page, 'f2f3');
    await waitPiece(b.page, 'f3', 'white pawn');
    await clickMove(b.page, 'e7e5');
    await waitPiece(a.page, 'e5', 'black pawn');

    // Now White's clock runs, smoothly, on both pages.
    await a.page.locator('#bar-bottom .clock.running').waitFor();
    await b.page.locator('#bar-top .clock.running').waitFor();
    const t1 = await text(a.page, '#bar-bottom .clock');
    await sleep(1300);
    const t2 = await text(a.page, '#bar-bottom .clock');
    assert.notEqual(t1, t2, 'the running clock counts down');
    assert.match(t2, /^2:5\d$/);
    assert.equal(await text(a.page, '#bar-top .clock'), '3:00');

    await clickMove(a.page, 'g2g4');

    // B selects the queen: its destinations are shown. Screenshots.
    await b.page.locator(`${sq('d8')}.movable`).waitFor();
    await b.page.click(sq('d8'));
    await b.page.locator(`${sq('h4')}.dest`).waitFor();
    assert.equal(await b.page.locator('#board .sq.dest').count(), 4,
                 'Qe7 Qf6 Qg5 Qh4');
    const shotPhone = await screenshot(b.page, 'board-phone.png');
    const shotDesk = await screenshot(a.page, 'board-desktop.png');
    t.diagnostic(`screenshots: ${shotDesk} ${shotPhone}`);

    const before = await moveCount(b.page);
    await b.page.click(sq('h4'));
    await b.page.waitForFunction((n) =>
        document.querySelectorAll('#moves button.move').length > n, before);

    // Checkmate, shown in words on both pages.
    await waitText(a.page, '#end-title', /^You lost$/);
    await waitText(a.page, '#end-reason', /^Black wins by checkmate\.$/);
    await waitText(b.page, '#end-title', /^You won$/);
    await waitText(b.page, '#end-reason', /^Black wins by checkmate\.$/);
    assert.deepEqual(await sanList(a.page), ['f3', 'e5', 'g4', 'Qh4#']);
    assert.deepEqual(await sanList(b.page), ['f3', 'e5', 'g4', 'Qh4#']);
    await a.page.locator(`${sq('e1')}.check`).waitFor();
    await screenshot(a.page, 'end-desktop.png');

    // Browsing back shows earlier positions without changing the game.
    await a.page.click('#nav-prev');
    await waitPiece(a.page, 'd8', 'black queen');
    await waitText(a.page, '#status', /\(viewing 2\. g4, move 2 of 2\)$/);
    await a.page.click('#moves button.move >> nth=0');
    await waitPiece(a.page, 'f3', 'white pawn');
    await waitPiece(a.page, 'g2', 'white pawn');
    await waitPiece(a.page, 'e7', 'black pawn');
    await a.page.click('#nav-last');
    await waitPiece(a.page, 'h4', 'black queen');
    await waitText(b.page, '#end-title', /^You won$/);

    assertClean(t, a, b);
});
