// A dead position shows its proof (issue 28 item 5): the end panel says
// why neither side can checkmate (the pawns that never move and the
// squares each side's king and pieces can reach), for both players, after
// a reload too, and the PGN download carries it as its last comment.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, invite, join, twoPlayers, waitText,
} from './lib.mjs';

// White's king takes the last rook: only locked pawns are left.
const FEN = '4k3/8/8/p1p1p1p1/P1P1P1P1/8/3r4/4K3 w - - 0 1';
const PROOF = 'Neither side can checkmate: the pawns are locked: a4, c4, ' +
    'e4, g4, a5, c5, e5, g5 never move; White’s king and pieces can only ' +
    'reach ranks 1–3, and Black’s only ranks 6–8.';
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a dead position shows its proof', { timeout: 120000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t, { b: { phone: true } });
    const link = await invite(a.page, { preset: '5-3', color: 'white',
                                        fen: FEN });
    await join(b.page, link);
    await waitText(a.page, '#status', /^Your move$/);
    // Before the end there is no proof to show.
    assert.ok(await a.page.locator('#end-proof').isHidden());

    await clickMove(a.page, 'e1d2');
    for (const p of [a, b]) {
        await waitText(p.page, '#end-title', /^Draw$/);
        await waitText(p.page, '#end-reason', /dead position/);
        await waitText(p.page, '#end-proof', new RegExp(`^${escape(PROOF)}$`));
    }

    // A reload rebuilds the page from the game's state: the same proof.
    await b.page.reload();
    await waitText(b.page, '#end-proof', new RegExp(`^${escape(PROOF)}$`));

    // The PGN: the standard Termination, and the proof as the last comment.
    const gid = new URL(link).pathname.split('/').pop();
    const pgn = await (await fetch(`${server.base}/api/games/${gid}/pgn`))
        .text();
    assert.match(pgn, /\[Termination "normal"\]/);
    const flat = pgn.replace(/\s+/g, ' ');
    assert.match(flat, /\{ Dead position\. White cannot checkmate: the pawns are locked; these never move: a4 c4 e4 g4 a5 c5 e5 g5;/);
    assert.match(flat, /\} 1\/2-1\/2 $/);

    assertClean(t, a, b);
});
