// Takebacks and time given on the game page: the Takeback button, the
// opponent's prompt (accepted, then declined) on a phone, the premove
// queued for the position taken back cleared, the "+15 s" button, and
// axe-core with the prompt shown.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, invite, join, logWebSocket,
    moveCount, premove, screenshot, twoPlayers, waitText, wsMessages,
} from './lib.mjs';

test('takeback asked, accepted and declined; +15 s', { timeout: 120000 },
     async (t) => {
    const { a, b } = await twoPlayers(t, {
        b: { beforeGoto: logWebSocket, phone: true },
    });
    const link = await invite(a.page, { preset: '3-0', color: 'white' });
    await join(b.page, link);
    assert.ok(await a.page.locator('#takeback-btn').isHidden(),
              'nothing to take back before both sides moved');
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    await clickMove(a.page, 'g1f3');
    // White queues a premove, then asks to take back Nf3.
    await premove(a.page, 'f1c4');
    await a.page.click('#takeback-btn');
    await waitText(a.page, '#takeback-btn', /^Takeback asked$/);
    await waitText(b.page, '#takeback-panel',
                   /Your opponent asks to take back a move/);
    assert.deepEqual(await axeSerious(b.page), [], 'takeback prompt');
    await screenshot(b.page, 'takeback-prompt-phone.png');
    const box = await b.page.locator('#accept-takeback-btn').boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390,
              'the answer fits the phone\'s width');
    await b.page.click('#accept-takeback-btn');
    for (const p of [a, b])
        await p.page.waitForFunction(() =>
            document.querySelectorAll('#moves button.move').length === 2);
    assert.equal(await a.page.locator('#board .sq.premove').count(), 0,
                 'the premove for the position taken back is dropped');
    await waitText(a.page, '#status', /^Your move$/);
    assert.ok(await b.page.locator('#takeback-panel').isHidden());

    // Declined: the button waits for a move.
    await clickMove(a.page, 'b1c3');
    await a.page.click('#takeback-btn');
    await waitText(b.page, '#takeback-panel', /asks to take back/);
    await b.page.click('#decline-takeback-btn');
    await waitText(a.page, '.toast', /Your takeback request was declined/);
    assert.ok(await a.page.locator('#takeback-btn').isDisabled());
    assert.equal(await moveCount(a.page), 3);

    // +15 s for Black.
    await a.page.click('#give-time-btn');
    await b.page.waitForFunction(() => window.wsLog.some((e) =>
        e.dir === 'in' && e.msg.t === 'time_given'));
    const [given] = await wsMessages(b.page, 'in', 'time_given');
    assert.equal(given.msg.color, 'black');
    assert.ok(given.msg.clocks.black_ms > 180000, 'Black has 3 min + 15 s');
    assert.ok(await b.page.locator('#give-time-btn').isVisible(),
              '+15 s on the phone too');
    assertClean(t, a, b);
});
