// Challenges (PROTOCOL.md, "Challenges"; web/challenge.js): A challenges
// B from B's page (/p/PID) with the Challenge button; the notice shows at
// once on both of B's pages (the lobby and the leaderboard), A waits; B
// declines on one page with a reason, which A reads, and the notice goes
// from B's other page too. Then A challenges B by name from the lobby, B
// accepts, and both pages open the game with A white as asked. axe-core
// finds nothing serious on the pages with the form and the notice.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, guestNamed, openPlayer, twoPlayers, waitText,
} from './lib.mjs';

test('a challenge from a player page and the lobby, on two pages',
     { timeout: 120000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t);
    await guestNamed(a.page, 'Alice');
    const bPid = await guestNamed(b.page, 'Bob');
    const b2 = await openPlayer(browser, `${server.base}/leaderboard`,
                                { ctx: b.ctx });

    // A: B's page, the Challenge button, 3+2, casual, white
    await a.page.goto(`${server.base}/p/${bPid}`);
    await waitText(a.page, '#conn-text', /^Online$/);
    await a.page.click('#challenge-btn');
    const form = '#challenge-player-form';
    await a.page.selectOption(`${form} select[name=clock]`, 'fischer:180:2');
    await a.page.selectOption(`${form} select[name=color]`, 'white');
    assert.deepEqual(await axeSerious(a.page), []);
    await a.page.click(`${form} button[type=submit]`);
    await waitText(a.page, '#challenges', /Waiting for Bob.*3\+2, casual, you play white/);
    for (const p of [b, b2])
        await waitText(p.page, '#challenges',
                       /Alice challenges you: 3\+2, casual, you play black/);
    assert.deepEqual(await axeSerious(b2.page), []);

    // B declines on the leaderboard's page: "later"
    await b2.page.selectOption('#challenges select[name=reason]', 'later');
    await b2.page.click('#challenges button:text("Decline")');
    await waitText(a.page, '#toasts',
                   /Bob declined your challenge: This is not the right time/);
    for (const p of [a, b, b2])
        await p.page.waitForSelector('#challenges', { state: 'hidden' });

    // by name from the lobby: accepted on B's first page
    await a.page.goto(`${server.base}/`);
    await waitText(a.page, '#conn-text', /^Online$/);
    await a.page.click('#challenge-friend summary');
    const lobbyForm = '#challenge-friend-form';
    await a.page.fill(`${lobbyForm} input[name=to]`, 'bob');
    await a.page.selectOption(`${lobbyForm} select[name=color]`, 'white');
    await a.page.click(`${lobbyForm} button[type=submit]`);
    await waitText(b.page, '#challenges', /Alice challenges you/);
    await waitText(b2.page, '#challenges', /Alice challenges you/);
    await b.page.click('#challenges button:text("Accept")');
    await a.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await b.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    assert.equal(new URL(a.page.url()).pathname,
                 new URL(b.page.url()).pathname);
    for (const [p, c] of [[a, 'white'], [b, 'black']])
        await p.page.waitForFunction((col) => {
            const bar = document.getElementById('bar-bottom');
            return bar.dataset.color === col &&
                !bar.querySelector('.pyou').hidden;
        }, c, { timeout: 15000, polling: 50 });
    await b2.page.waitForSelector('#challenges', { state: 'hidden' });
    assertClean(t, a, b, b2);
});
