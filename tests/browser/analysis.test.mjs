// The computer analysis of a finished game on the game page: the
// "Request computer analysis" button, the progress the server pushes, the
// evaluation graph, the blunder marked in the move list with the best
// move instead, each side's accuracy and the engine line; axe-core with
// it all shown; the game marked "Analysed" in the player's finished games.
// Debian's Stockfish at a tiny node budget.

import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, invite, join, logWebSocket,
    screenshot, twoPlayers, waitText, wsMessages,
} from './lib.mjs';

test('request an analysis, see its progress, graph and blunder',
     { timeout: 120000 }, async (t) => {
    const dir = mkdtempSync(pathJoin(tmpdir(), 'chess-analysis-'));
    const config = pathJoin(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ analysis_nodes: 2000 }));
    const { server, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', config] },
        a: { beforeGoto: logWebSocket },
    });
    const link = await invite(a.page, { preset: '3-0', color: 'white' });
    await join(b.page, link);
    // 3... Nf6?? allows 4. Qxf7#
    const moves = ['e2e4', 'e7e5', 'd1h5', 'b8c6', 'f1c4', 'g8f6', 'h5f7'];
    moves.forEach((m, i) => moves[i] = [i % 2 ? b : a, m]);
    for (const [p, m] of moves)
        await clickMove(p.page, m);
    await waitText(a.page, '#end-title', /^You won$/);
    await waitText(a.page, '#analysis-btn', /^Request computer analysis$/);
    await a.page.click('#analysis-btn');
    await waitText(a.page, '#analysis-engine',
                   /^Stockfish .*, 2000 nodes per position$/, 30000);
    const progress = await wsMessages(a.page, 'in', 'analysis_progress');
    assert.ok(progress.length >= 1, 'progress pushed');
    assert.ok(await a.page.locator('#analysis-graph polyline').isVisible());
    await waitText(a.page, '#analysis-black', /1 blunders/);
    await waitText(a.page, '#analysis-white', /^White: \d+% accuracy/);
    // the blunder is marked; shown, it says the best move
    const nf6 = a.page.locator('#moves button[data-ply="6"]');
    assert.match(await nf6.textContent(), /Nf6\?\? #1/);
    await nf6.click();
    await waitText(a.page, '#analysis-best',
                   /^Blunder: Nf6\. Best was [A-Za-z0-9+#=-]+\.$/);
    // and draws it as an arrow on the board, to the square its SAN names
    const best = (await a.page.textContent('#analysis-best'))
        .match(/Best was (.+)\.$/)[1];
    const arrow = a.page.locator('#game .shapes.best line.arrow');
    assert.equal(await arrow.count(), 1);
    const to = Number(await arrow.getAttribute('data-to'));
    const square = 'abcdefgh'[to % 8] + String(Math.floor(to / 8) + 1);
    if (!best.startsWith('O-O'))
        assert.equal(square, best.replace(/(=[QRBN])?[+#]?$/, '').slice(-2));
    assert.ok(await a.page.locator('#game .shapes.best').isVisible());
    // a move not marked: no arrow
    await a.page.click('#moves button[data-ply="7"]');
    await a.page.waitForFunction(() => !document.querySelector(
        '#game .shapes.best line.arrow'), null, { timeout: 5000 });
    // the current move's evaluation readable on its highlight (#1, the
    // mate, was not)
    assert.deepEqual(await axeSerious(a.page), [], 'the mate shown');
    await nf6.click();
    await a.page.waitForSelector('#game .shapes.best line.arrow',
                                 { state: 'attached' });
    // the opponent's page, opened afterwards, reads the stored analysis
    await b.page.reload();
    await waitText(b.page, '#analysis-black', /1 blunders/);
    assert.ok(await b.page.locator('#analysis-btn').isHidden());
    // and the opponent's finished games mark the game analysed
    assert.deepEqual(await axeSerious(a.page), [], 'analysis shown');
    await screenshot(a.page, 'analysis.png');
    await b.page.goto(`${server.base}/`);
    await b.page.click('#my-history');
    await waitText(b.page, '#player-games .hanalysed', /^Analysed$/);
    assertClean(t, a, b);
});
