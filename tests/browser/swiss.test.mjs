// Swiss tournaments: A creates one of one round from the Tournaments page
// (started by hand) with a password (an entry condition its page shows),
// B is refused without it, A and B join with it on its page, A starts
// it, both are
// paired (the game page names the event), B resigns, and a watcher sees
// the round's result and A first with 1 point; the TRF link serves the
// event's TRF. The pages are axe-clean.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, confirm, myName, openPlayer, twoPlayers,
    waitText,
} from './lib.mjs';

test('create, join, start, play a round, see the standings',
     { timeout: 120000 }, async (t) => {
    const conf = pathJoin(mkdtempSync(pathJoin(tmpdir(), 'chess-swiss-')),
                          'config.json');
    writeFileSync(conf, JSON.stringify({ arena_create: 2 }));
    const { server, browser, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', conf] } });
    const nameA = await myName(a.page);

    await a.page.click('#arena-link');
    await waitText(a.page, '#swiss-list', /No Swiss tournaments yet/);
    await a.page.fill('#swiss-name', 'Club_swiss');
    await a.page.fill('#swiss-rounds', '1');
    await a.page.fill('#swiss-interval', '0');
    await a.page.fill('#swiss-pw', 'club-7');
    await a.page.click('#swiss-create-btn');
    await a.page.waitForURL(/\/t\/[A-Za-z0-9_-]+\?swiss$/);
    const url = a.page.url();
    await waitText(a.page, '#swiss-name-shown', /Club_swiss/);
    await waitText(a.page, '#swiss-status', /Starts soon · round 0 of 1/);
    await waitText(a.page, '#swiss-conditions', /To join: a password\./);

    const c = await openPlayer(browser, `${server.base}/tournaments`);
    await waitText(c.page, '#swiss-list', /Club_swiss.*round 0 of 1/);
    await c.page.click('#swiss-list a');
    await c.page.waitForURL(url);
    await b.page.goto(url);
    await b.page.fill('#swiss-join-pw', 'wrong');
    await b.page.click('#swiss-join-btn');
    await waitText(b.page, '#toasts', /password: not this tournament's/);
    await b.page.fill('#swiss-join-pw', 'club-7');
    await b.page.click('#swiss-join-btn');
    await a.page.fill('#swiss-join-pw', 'club-7');
    await a.page.click('#swiss-join-btn');
    await waitText(c.page, '#swiss-standings', new RegExp(nameA));
    assert.deepEqual(await axeSerious(a.page), [], 'event page');
    // the organiser's pause, seen by everyone; only he has the button
    await a.page.click('#swiss-pause-btn');
    await waitText(c.page, '#swiss-status', /round 0 of 1 · paused/);
    assert.equal(await c.page.$('#swiss-pause-btn'), null);
    await waitText(a.page, '#swiss-pause-btn', /Resume/);
    await a.page.click('#swiss-pause-btn');
    await waitText(c.page, '#swiss-status', /round 0 of 1$/);
    await a.page.click('#swiss-start-btn');

    await a.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await b.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await waitText(b.page, '#game-arena', /Tournament: Club_swiss/);
    await waitText(a.page, '#status', /Your move|Waiting for your opponent/);
    const aWhite = /Your move/.test(await a.page.textContent('#status'));
    const [w, bl] = aWhite ? [a, b] : [b, a];
    await clickMove(w.page, 'e2e4');
    await waitText(bl.page, '#status', /Your move/);
    await clickMove(bl.page, 'e7e5');
    await waitText(w.page, '#status', /Your move/);
    await b.page.click('#resign-btn');
    await confirm(b.page, true);

    await waitText(c.page, '#swiss-status', /Finished · round 1 of 1/);
    await waitText(c.page, '#swiss-pairings', /(1-0|0-1)/);
    await waitText(c.page, '#swiss-standings tbody tr:first-child',
                   new RegExp(nameA));
    await waitText(c.page,
                   '#swiss-standings tbody tr:first-child .arena-score',
                   /^1$/);
    assert.deepEqual(await axeSerious(c.page), [], 'standings');
    const href = await c.page.getAttribute('#swiss-trf', 'href');
    const trf = await (await fetch(new URL(href, url))).text();
    assert.match(trf, /^012 Club_swiss\n001 {4}1/);
    assert.match(trf, /XXR 1\n/);
    assertClean(t, a, b, c);
});
