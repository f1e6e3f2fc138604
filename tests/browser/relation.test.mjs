// Block and Report on a player's page (web/relation.js; PROTOCOL.md
// section 4, "Blocks and reports"), on a phone: an account blocks another
// from their page (the button says Unblock then, also after a reload: the
// server keeps it) and unblocks; reports them with a reason and a text,
// once (a second report the same day is refused, and the page says so).
// Nobody sees the buttons on their own page, nor a guest. axe-core finds
// nothing serious with the report form open, and nothing is wider than
// the phone.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, guestNamed, register, twoPlayers, waitText,
} from './lib.mjs';

async function openPage(page, url) {
    await page.goto(url);
    await waitText(page, '#conn-text', /^Online$/);
}

test('block, unblock and report from a player page on a phone',
     { timeout: 90000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t, { a: { phone: true } });
    const p = a.page;
    await register(p, 'alice');
    const bob = await register(b.page, 'bob');
    await openPage(p, `${server.base}/p/${bob}`);
    await waitText(p, '#block-btn:not([disabled])', /^Block$/);
    assert.equal(await p.getAttribute('#block-btn', 'aria-pressed'), 'false');

    await p.click('#block-btn');
    await waitText(p, '#block-btn', /^Unblock$/);
    await waitText(p, '#relation-status', /Blocked/);
    assert.equal(await p.getAttribute('#block-btn', 'aria-pressed'), 'true');
    await p.reload(); // (the server's list, read again)
    await waitText(p, '#conn-text', /^Online$/);
    await waitText(p, '#block-btn:not([disabled])', /^Unblock$/);
    await p.click('#block-btn');
    await waitText(p, '#block-btn', /^Block$/);
    await waitText(p, '#relation-status', /Unblocked/);

    await p.click('#report-btn');
    assert.equal(await p.getAttribute('#report-btn', 'aria-expanded'),
                 'true');
    await p.selectOption('#report-reason', 'abuse');
    await p.fill('#report-text', 'insults in the chat of our last game');
    assert.deepEqual(await axeSerious(p), [], 'the report form');
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <=
                               window.innerWidth), 'nothing wider than a phone');
    await p.click('#report-send');
    await waitText(p, '#relation-status', /Report about bob sent/);
    assert.equal(await p.isVisible('#report-form'), false);
    await p.click('#report-btn');
    await p.fill('#report-text', 'and again');
    await p.click('#report-send');
    await waitText(p, '#relation-status', /less than a day ago/);

    // not on one's own page, nor for a guest
    await openPage(b.page, `${server.base}/p/${bob}`);
    await b.page.locator('#player-ratings').waitFor();
    assert.equal(await b.page.isVisible('#player-relation'), false);
    await guestNamed(b.page, 'visitor');
    await openPage(b.page, `${server.base}/p/${bob}`);
    await b.page.locator('#player-ratings').waitFor();
    assert.equal(await b.page.isVisible('#block-btn'), false);
    assertClean(t, a, b);
});
