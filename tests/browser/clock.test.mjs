// Clocks and the rules that end a game by time: low-time emphasis and a
// flag in a per-move game, and the first-move abort.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, invite, join, text, twoPlayers, waitText,
} from './lib.mjs';

async function customPerMove(page, seconds) {
    await page.click('label[for="tc-custom"]');
    await page.check('input[name="kind"][value="per_move"]');
    await page.fill('#c-permove', String(seconds));
    await waitText(page, '#custom-summary', new RegExp(`^${seconds} s per move$`));
}

test('per-move clock: low time, then a flag', { timeout: 120000 },
     async (t) => {
    const { a, b } = await twoPlayers(t);
    await customPerMove(a.page, 5);
    const link = await invite(a.page, { preset: 'custom', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');

    // White's 5 s budget runs; its last 3 s are emphasised (the larger of
    // 3 s and a fifth of the budget). The page is sampled every frame:
    // what the clock shows, and whether it is red.
    await a.page.evaluate(() => {
        window.clockSamples = [];
        const el = document.querySelector('#bar-bottom .clock');
        const look = () => {
            if (el.classList.contains('running'))
                window.clockSamples.push([Number(el.textContent),
                                          el.classList.contains('low')]);
            if (!el.classList.contains('flagged'))
                requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
    });
    await a.page.locator('#bar-bottom .clock.running').waitFor();
    assert.equal(await text(a.page, '#bar-top .clock'), '5.0',
                 'the side not to move shows a whole budget');
    await a.page.locator('#bar-bottom .clock.running.low')
        .waitFor({ timeout: 8000 });
    await b.page.locator('#bar-top .clock.running.low')
        .waitFor({ timeout: 8000 });

    await waitText(a.page, '#end-title', /^You lost$/, 10000);
    await waitText(a.page, '#end-reason',
                   /^White ran out of time\. Black wins on time\.$/);
    await waitText(b.page, '#end-title', /^You won$/);
    await waitText(a.page, '#bar-bottom .clock', /^0\.0$/);
    await a.page.locator('#bar-bottom .clock.flagged').waitFor();
    // (the face shows tenths rounded down: 3.0 is at most 3.099 s left)
    const samples = await a.page.evaluate(() => window.clockSamples);
    const early = samples.filter(([s, low]) => s >= 3.1 && low);
    const late = samples.filter(([s, low]) => s < 3.0 && !low);
    assert.deepEqual(early, [], 'not red above 3 s');
    assert.deepEqual(late, [], 'red below 3 s');
    assert.ok(samples.some(([s]) => s >= 3.1) &&
              samples.some(([s]) => s < 3.0 && s > 1.5),
              `sampled both sides of 3 s: ${JSON.stringify(samples.slice(0, 3))}`);
    assertClean(t, a, b);
});

test('a game nobody starts is aborted', { timeout: 60000 }, async (t) => {
    const { a, b } = await twoPlayers(t, { server: { firstMoveS: 3 } });
    const link = await invite(a.page, { preset: '5-3', color: 'black' });
    await join(b.page, link);
    await waitText(b.page, '#notice', /You have [1-3] s to make the first move/);
    await waitText(a.page, '#notice', /White has [1-3] s to make the first move/);
    for (const p of [a, b]) {
        await waitText(p.page, '#end-title', /^Game aborted$/, 10000);
        await waitText(p.page, '#end-reason',
                       /^White did not make the first move in time/);
    }
    // An aborted game offers no PGN of moves nobody made.
    assert.ok(await a.page.locator('#pgn-link').isHidden());
    assertClean(t, a, b);
});
