// Chat on the game page: two players talk in the players' room (the
// sender's name links to their page, the text shown as text, never HTML);
// a spectator on a phone writes in the spectators' room, which the
// players do not see; the spectator's flood is refused and the mute's end
// shown; chat off hides the lines; axe-core on both pages.

import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, axeSerious, invite, join, openPlayer, screenshot,
    twoPlayers, waitText,
} from './lib.mjs';

async function say(page, text) {
    await page.fill('#chat-input', text);
    await page.click('#chat-send');
}

// The lines page shows in its chat log, as "NAME TEXT".
function lines(page) {
    return page.$$eval('#chat-log .chat-line', (l) => l.map((li) => li.textContent));
}

async function waitLines(page, n) {
    await page.waitForFunction((k) =>
        document.querySelectorAll('#chat-log .chat-line').length === k, n);
}

test('players and a spectator chat in their rooms', { timeout: 120000 },
     async (t) => {
    const dir = mkdtempSync(pathJoin(tmpdir(), 'chess-chat-'));
    const cfg = pathJoin(dir, 'chat.json');
    // guests may chat here (the default is accounts only); a burst of 3
    writeFileSync(cfg, JSON.stringify({ chat_guests: 1, chat_burst: 3,
                                        chat_per_min: 6 }));
    const { server, browser, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', cfg] },
    });
    const link = await invite(a.page, { preset: '10-5', color: 'white' });
    await join(b.page, link);
    await waitText(a.page, '#chat-title', /^Chat$/);

    await say(a.page, 'good luck <b>&amp;</b>');
    await say(b.page, 'you too');
    for (const p of [a, b])
        await waitLines(p.page, 2);
    const aName = await a.page.textContent('#me');
    assert.deepEqual(await lines(b.page),
                     [`${aName}good luck <b>&amp;</b>`,
                      `${await b.page.textContent('#me')}you too`]);
    assert.equal(await b.page.locator('#chat-log b').count(), 0,
                 'the text is text, never HTML');
    const href = await b.page.getAttribute('#chat-log .chat-line:first-child a',
                                           'href');
    assert.match(href, /^\/p\/[A-Za-z0-9_-]+$/);
    assert.equal(await a.page.getAttribute('#chat-input', 'maxlength'),
                 '140');

    // A spectator (on a phone) sees the spectators' room only.
    const c = await openPlayer(browser, link, { phone: true });
    await waitText(c.page, '#status', /^You are watching/);
    assert.deepEqual(await lines(c.page), [], 'not the players\' lines');
    await say(c.page, 'nice opening');
    await waitLines(c.page, 1);
    assert.match((await lines(c.page))[0], /nice opening$/);
    await screenshot(c.page, 'chat-spectator-phone.png');
    // (its line went out at once: the players' rooms got nothing)
    await say(a.page, 'thanks');
    await waitLines(b.page, 3);
    await waitLines(a.page, 3);
    assert.ok(!(await lines(a.page)).some((l) => /nice opening/.test(l)));
    assert.ok(!(await lines(b.page)).some((l) => /nice opening/.test(l)));
    assert.equal((await lines(c.page)).length, 1);

    // The spectator floods: two more pass, the fourth is refused and
    // mutes them, and the page says until when.
    await say(c.page, 'two');
    await waitLines(c.page, 2);
    await say(c.page, 'three');
    await waitLines(c.page, 3);
    await say(c.page, 'four');
    await waitText(c.page, '#chat-note', /You are muted until .+ for sending too many lines\./);
    assert.equal((await lines(c.page)).length, 3);

    assert.deepEqual(await axeSerious(a.page), [], 'chat, desktop');
    assert.deepEqual(await axeSerious(c.page), [], 'chat, phone');

    // Chat off: B sees no more lines and no input.
    await b.page.click('#chat-off-btn');
    await waitText(b.page, '#chat-note', /^Chat is off\.$/);
    assert.ok(await b.page.locator('#chat-log').isHidden());
    assert.ok(await b.page.locator('#chat-form').isHidden());
    await say(a.page, 'still there?');
    await waitLines(a.page, 4);
    await b.page.click('#chat-on-btn');
    assert.ok(!(await lines(b.page)).some((l) => /still there/.test(l)),
              'a line sent while chat was off is not shown');
    void server;
    assertClean(t, a, b, c);
});
