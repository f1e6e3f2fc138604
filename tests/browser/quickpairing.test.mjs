// The lobby as a lichess regular meets it (issue 29): nothing moves after
// the page loads (the cumulative layout shift, measured with the Layout
// Instability API), a seek in one click, the open seeks on a phone's
// first screen, a rating range for rated seeks, toasts that never cover
// the open seeks, the top bar's own name whole on a phone, distinct words
// for a first move not made in time and for a withdrawn invitation, and
// the leaderboard saying who it leaves out.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, logWebSocket, myName, openPlayer, PASSWORD,
    screenshot, serverAndBrowser, sleep, waitText, wsMessages,
} from './lib.mjs';

// Before the page loads: sums, in window.cls, the layout shifts the page
// makes without a recent input (the Layout Instability API's cumulative
// layout shift), and keeps each in window.shifts with what moved.
function watchShifts(page) {
    return page.addInitScript(() => {
        window.cls = 0;
        window.shifts = [];
        new PerformanceObserver((list) => {
            for (const e of list.getEntries()) {
                if (e.hadRecentInput)
                    continue;
                window.cls += e.value;
                window.shifts.push({ value: e.value, moved: (e.sources || [])
                    .map((s) => s.node && (s.node.id || s.node.className ||
                                           s.node.nodeName)) });
            }
        }).observe({ type: 'layout-shift', buffered: true });
    });
}

const rect = (page, sel) => page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
}, sel);

const overlap = (a, b) => a.left < b.right && b.left < a.right &&
    a.top < b.bottom && b.top < a.bottom;

// Signs `page` up through the header's menu, with the dialog; returns
// when the sign-up's toast shows.
async function signUp(page, username) {
    await page.click('#menu-btn');
    await page.click('#menu-signup');
    await page.fill('#account-user', username);
    await page.fill('#account-pass', PASSWORD);
    await page.click('#account-ok');
    await waitText(page, '.toast', /is ready/);
}

test('the lobby: no shift after load, one click to seek, the seeks in ' +
     'view on a phone, a rating range, toasts beside the seeks',
{ timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t, {
        firstMoveS: 2 });
    const a = await openPlayer(browser, `${server.base}/`, {
        beforeGoto: async (p) => {
            await watchShifts(p);
            await logWebSocket(p);
        } });
    const b = await openPlayer(browser, `${server.base}/`, {
        phone: true, beforeGoto: watchShifts });
    // after the welcome and the lobby's first snapshot
    for (const p of [a, b]) {
        await myName(p.page);
        await waitText(p.page, '#identity-text', /You play as/);
        await waitText(p.page, '#rated-why', /need an account/);
    }
    await sleep(700);
    for (const [p, size] of [[a, 'desktop'], [b, 'phone']]) {
        const { cls, shifts } = await p.page.evaluate(() => ({
            cls: window.cls, shifts: window.shifts }));
        console.log(`# lobby, ${size}: cumulative layout shift ${
            cls.toFixed(4)} ${JSON.stringify(shifts)}`);
        assert.ok(cls < 0.005, `${size}: layout shift ${cls}: ${
            JSON.stringify(shifts)}`);
    }
    // the phone's top bar shows one's own name whole
    const me = await b.page.evaluate(() => {
        const el = document.getElementById('me');
        return { whole: el.scrollWidth <= el.clientWidth,
                 text: el.textContent };
    });
    assert.ok(me.whole, `the phone's top bar cuts "${me.text}"`);
    assert.deepEqual(await axeSerious(b.page), [], 'lobby, phone');

    // one click on a time control seeks
    await a.page.click('label[for="tc-3-2"]');
    await waitText(a.page, '#seeking', /Looking for an opponent: 3\+2/);
    const seeks = await wsMessages(a.page, 'out', 'seek');
    assert.equal(seeks.length, 1);
    // ... and shows on the phone's first screen, with the live games after
    const nameA = await myName(a.page);
    await waitText(b.page, '#seeks-list', new RegExp(nameA));
    await b.page.evaluate(() => window.scrollTo(0, 0));
    const row = await rect(b.page, '#seeks-list .seek-row');
    const height = b.page.viewportSize().height;
    assert.ok(row.bottom <= height, `the open seek ends at ${row.bottom
    } px, below the phone's first screen (${height} px)`);
    await screenshot(b.page, 'lobby-phone.png');

    // B takes it; nobody moves: the first move's time runs out, in its
    // own words
    await b.page.click('#seeks-list .seek-play');
    for (const p of [a, b]) {
        await p.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
        await waitText(p.page, '#end-reason',
                       /^White did not make the first move in time: no game, no result\.$/, 8000);
        await waitText(p.page, '#end-title', /^Game aborted$/);
    }

    // A signs up; the toast does not cover the open seeks (B's seek)
    await a.page.click('#new-game-link');
    await b.page.click('#new-game-link');
    await b.page.click('label[for="tc-10-5"]');
    await waitText(a.page, '#seeks-list', /10\+5/);
    await signUp(a.page, 'quick_a');
    assert.ok(!overlap(await rect(a.page, '.toast'),
                       await rect(a.page, '#open-seeks')),
              'desktop: the toast covers the open seeks');
    await screenshot(a.page, 'lobby-toast-desktop.png');

    // rated, within ±200 of A's rating: the range goes with the seek and
    // shows in the list
    await a.page.click('label[for="rated-yes"]');
    await a.page.locator('#range-box').waitFor();
    await a.page.selectOption('#rating-range', '200');
    assert.deepEqual(await axeSerious(a.page), [], 'lobby, rated, desktop');
    await a.page.click('label[for="tc-5-3"]');
    await waitText(a.page, '#seeking', /rated 5\+3/);
    const last = (await wsMessages(a.page, 'out', 'seek')).pop().msg;
    assert.deepEqual(last.rating_range, [1300, 1700]);
    assert.equal(last.rated, true);
    await waitText(b.page, '#seeks-list', /Rated 1300–1700/);
    await a.page.click('#cancel-seek-btn');
    await b.page.click('#cancel-seek-btn');

    // the phone signs up too: its toast is not over the seeks either
    await a.page.click('label[for="rated-no"]');
    await a.page.click('label[for="tc-3-2"]');
    await waitText(b.page, '#seeks-list', /3\+2/);
    await b.page.evaluate(() => window.scrollTo(0, 0));
    await signUp(b.page, 'quick_b');
    assert.ok(!overlap(await rect(b.page, '.toast'),
                       await rect(b.page, '#open-seeks')),
              'phone: the toast covers the open seeks');
    await a.page.click('#cancel-seek-btn');

    // an invitation withdrawn says so
    await a.page.click('#invite-btn');
    await waitText(a.page, '#tc-hint', /create the invitation/);
    assert.deepEqual(await axeSerious(a.page), [], 'lobby, inviting');
    await a.page.click('label[for="tc-10-5"]');
    await waitText(a.page, '#status', /Waiting for your opponent to join/);
    await a.page.click('#cancel-invite-btn');
    await waitText(a.page, '#end-title', /^Invitation cancelled$/);
    await waitText(a.page, '#end-reason',
                   /^The invitation was cancelled before anyone joined\.$/);

    // the leaderboard says who it leaves out, and that A is one of them
    await a.page.goto(`${server.base}/leaderboard`);
    await waitText(a.page, '#lb-note', /Provisional ratings .* are not listed/);
    await waitText(a.page, '#lb-note',
                   /Your blitz rating, 1500\?, is still provisional\.$/);
    assertClean(t, a, b);
});
