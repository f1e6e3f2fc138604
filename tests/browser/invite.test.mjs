// An invitation link pairs two players; they play to checkmate by dragging
// pieces; the PGN link downloads the game.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
    assertClean, dragMove, invite, join, myName, sanList, text, twoPlayers,
    waitPiece, waitText,
} from './lib.mjs';

test('invitation link, checkmate by drag, PGN download', { timeout: 120000 },
     async (t) => {
    const { server, a, b } = await twoPlayers(t);
    const nameA = await myName(a.page);
    const nameB = await myName(b.page);

    const link = await invite(a.page, { preset: '10-5', color: 'white' });
    assert.match(link, new RegExp(`^${server.base}/g/[A-Za-z0-9_-]+$`));
    assert.equal(new URL(link).pathname, new URL(a.page.url()).pathname);
    await waitText(a.page, '#bar-top .name', /^Waiting for an opponent…$/);

    // The invited player sees who invites and to what, then joins.
    await b.page.goto(link);
    await waitText(b.page, '#conn-text', /^Online$/);
    await waitText(b.page, '#join-title', new RegExp(`^${nameA} invites you to play$`));
    await waitText(b.page, '#join-text', /^10\+5 \(Rapid\)\. You play Black\.$/);
    await b.page.click('#join-btn');
    await waitText(b.page, '#status', /^Waiting for your opponent to move$/);
    await waitText(a.page, '#status', /^Your move$/);
    await waitText(a.page, '#bar-top .name', new RegExp(`^${nameB}$`));
    assert.ok(await a.page.locator('#invite-panel').isHidden());

    for (const [p, uci] of [[a, 'e2e4'], [b, 'e7e5'], [a, 'f1c4'],
                            [b, 'b8c6'], [a, 'd1h5'], [b, 'g8f6'],
                            [a, 'h5f7']])
        await dragMove(p.page, uci);

    await waitText(a.page, '#end-title', /^You won$/);
    await waitText(a.page, '#end-reason', /^White wins by checkmate\.$/);
    await waitText(b.page, '#end-title', /^You lost$/);
    await waitPiece(b.page, 'f7', 'white queen');
    assert.deepEqual(await sanList(b.page),
                     ['e4', 'e5', 'Bc4', 'Nc6', 'Qh5', 'Nf6', 'Qxf7#']);

    // The PGN link downloads the finished game.
    const [download] = await Promise.all([
        a.page.waitForEvent('download'),
        a.page.click('#pgn-link'),
    ]);
    const pgn = readFileSync(await download.path(), 'utf8');
    t.diagnostic(`PGN:\n${pgn}`);
    for (const tag of ['Event', 'Site', 'Date', 'Round', 'White', 'Black',
                       'Result'])
        assert.match(pgn, new RegExp(`^\\[${tag} "[^"\\n]*"\\]$`, 'm'),
                     `PGN has the ${tag} tag`);
    assert.match(pgn, new RegExp(`^\\[White "${nameA}"\\]$`, 'm'));
    assert.match(pgn, new RegExp(`^\\[Black "${nameB}"\\]$`, 'm'));
    assert.match(pgn, /^\[Result "1-0"\]$/m);
    assert.match(pgn, /^\[TimeControl "600\+5"\]$/m);
    // Movetext without comments and the move numbers repeated after them.
    const movetext = pgn.replace(/^\[.*\]$/gm, '').replace(/\{[^}]*\}/g, '')
        .replace(/\b\d+\.\.\./g, '').replace(/\s+/g, ' ').trim();
    assert.equal(movetext,
                 '1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0');
    assert.match(download.suggestedFilename(), /\.pgn$/);

    assertClean(t, a, b);
});
