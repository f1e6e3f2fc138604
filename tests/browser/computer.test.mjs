// Playing the computer from the lobby: the level, the colour and the
// clock of the form; the computer's name on the board, its reply on its
// own; no rematch at the end but another game at the same level; the
// one-game-at-a-time refusal in words; a game from a set-up position.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, confirm, dragMove, moveCount, sanList, twoPlayers,
    waitText, wsMessages, logWebSocket,
} from './lib.mjs';

// "Play with the computer", a colour, a level, the FEN (optional), then
// a click on the time control.
async function playComputer(page, { preset, color, level, fen = null }) {
    if (await page.getAttribute('#computer-btn', 'aria-pressed') !== 'true')
        await page.click('#computer-btn');
    assert.ok(await page.locator('#rated-box').isHidden());
    await page.click(`label[for="col-${color}"]`);
    await page.click(`label[for="lvl-${level}"]`);
    if (fen) {
        await page.click('.fen-box summary');
        await page.fill('#fen', fen);
    }
    await page.click(`label[for="tc-${preset}"]`);
    await page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
}

test('play the computer from the lobby', { timeout: 120000 }, async (t) => {
    const { a } = await twoPlayers(t, { b: null,
                                        a: { beforeGoto: logWebSocket } });
    const page = a.page;
    await playComputer(page, { preset: '3-2', color: 'white', level: 2 });
    const sent = (await wsMessages(page, 'out', 'computer'))
        .map((e) => e.msg);
    assert.deepEqual(sent[0], {
        t: 'computer', level: 2, color: 'white',
        clock: { type: 'fischer', initial_s: 180, increment_s: 2 },
        id: sent[0].id,
    });
    await waitText(page, '#bar-top .name', /^Stockfish level 2$/);
    await waitText(page, '#status', /^Your move$/);
    await dragMove(page, 'e2e4');
    // the computer answers on its own
    await page.waitForFunction(() =>
        document.querySelectorAll('#moves button.move').length >= 2,
    null, { timeout: 15000, polling: 50 });
    assert.equal((await sanList(page))[0], 'e4');
    // resign: no rematch against the computer, another game instead
    await page.click('#resign-btn');
    await confirm(page);
    await waitText(page, '#end-title', /^You lost$/);
    assert.ok(await page.locator('#rematch').isHidden());
    assert.ok(await page.locator('#computer-again-btn').isVisible());
    const first = new URL(page.url()).pathname;
    await page.click('#computer-again-btn');
    await page.waitForURL((u) => u.pathname !== first &&
                          /^\/g\//.test(u.pathname));
    // the other colour: the computer moves first
    await waitText(page, '#bar-top .name', /^Stockfish level 2$/);
    await waitText(page, '#status', /^Your move$/, 15000);
    assert.equal(await moveCount(page), 1);
    // a game in progress: the lobby says so, and a click on a clock in
    // the computer's mode starts nothing
    await page.goto(new URL('/', page.url()).href);
    await waitText(page, '#conn-text', /^Online$/);
    await waitText(page, '#seek-busy', /game in progress/);
    await page.click('#computer-btn');
    await page.click('label[for="tc-3-2"]');
    assert.equal((await wsMessages(page, 'out', 'computer')).length, 0);
    assertClean(t, a);
});

test('the computer from a set-up position', { timeout: 60000 },
     async (t) => {
    const { a } = await twoPlayers(t, { b: null });
    const page = a.page;
    await playComputer(page, { preset: '10-5', color: 'black', level: 8,
                               fen: 'k7/8/1K6/8/8/8/7Q/8 w - - 0 1' });
    await waitText(page, '#end-title', /^You lost$/, 15000);
    await waitText(page, '#end-reason', /^White wins by checkmate\.$/);
    assert.deepEqual(await sanList(page), ['Qh8#']);
    assertClean(t, a);
});
