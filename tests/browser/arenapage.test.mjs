// An arena's standings by page (PROTOCOL.md "arena_watch": 10 players a
// page, each page pushed to its own watchers): A creates an event that
// starts in 5 minutes (listed under "Starting soon", with a countdown),
// 11 guests join it over WebSockets of their own, and A pages through
// the standings (Page 1 of 2, then 2 of 2). A joins while page 1 shows:
// his row (rank 12) is on page 2, yet his button says Withdraw at once
// and "My page" takes him there; he withdraws and joins again from page
// 1. Back on the event from the list, the page opens on his own page;
// when the organiser ends it, that page shows the podium. A watcher
// whose server does not page (its arena_watch's page dropped on the way)
// still sees page 1 of 2, then page 2.
// Then a Swiss's page (swiss_watch by page too), with a countdown to its
// first round: A joins on page 1, his row is on page 2, and he withdraws
// from page 1; a guest leaves while page 2 shows: page 1 of 1 shows.
// The Tournaments page lists the Swiss under Starting soon, the arena
// under Finished.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, axeSerious, myName, openPlayer, twoPlayers, waitText,
} from './lib.mjs';

// n guests g00, g01... that join event eid (kind: arena or swiss) from
// page's origin, one after the other (their ranks follow), each on a
// socket of its own that stays open with the page.
function guestsJoin(page, eid, n, kind = 'arena') {
    return page.evaluate(async ([eid, n, kind]) => {
        for (let i = 0; i < n; i++) {
            await new Promise((ok, fail) => {
                const ws = new WebSocket(`ws://${location.host}/ws`,
                                         'chess.v1');
                (window.guests ||= []).push(ws);
                ws.onopen = () => ws.send(JSON.stringify(
                    { t: 'hello', name: `g${String(i).padStart(2, '0')}` }));
                ws.onmessage = (ev) => {
                    const m = JSON.parse(ev.data);
                    if (m.t === 'welcome')
                        ws.send(JSON.stringify({ t: `${kind}_join`,
                                                 event: eid }));
                    else if (m.t === `${kind}_joined`)
                        ok();
                    else if (m.t === 'error')
                        fail(new Error(m.msg));
                };
            });
        }
    }, [eid, n, kind]);
}

test('page through an arena\'s standings, join and withdraw on any page',
     { timeout: 60000 }, async (t) => {
    const conf = pathJoin(mkdtempSync(pathJoin(tmpdir(), 'chess-arenap-')),
                          'config.json');
    writeFileSync(conf, JSON.stringify({ arena_create: 2 }));
    const { server, browser, a } = await twoPlayers(t, {
        server: { extra: ['--config', conf] }, b: null });
    const page = a.page;
    const nameA = await myName(page);

    await page.click('#arena-link');
    await page.fill('#arena-name', 'Paged');
    await page.fill('#arena-start', '5');
    await page.click('#arena-create-btn');
    await page.waitForURL(/\/t\/[A-Za-z0-9_-]+$/);
    const eid = new URL(page.url()).pathname.split('/')[2];
    await waitText(page, '#arena-countdown', /starts in [45]:\d\d/);
    await guestsJoin(page, eid, 11);

    // 11 players: two pages, A on neither
    await waitText(page, '#arena-page-shown', /^Page 1 of 2$/);
    assert.equal(await page.locator('#arena-standings tbody tr').count(), 10);
    assert.equal(await page.isDisabled('#arena-page-prev'), true);
    assert.equal(await page.locator('#arena-page-mine').count(), 0);
    await page.click('#arena-page-next');
    await waitText(page, '#arena-page-shown', /^Page 2 of 2$/);
    await waitText(page, '#arena-standings tbody', /^11g10/);
    assert.equal(await page.isDisabled('#arena-page-next'), true);

    // A joins from page 1: rank 12, on page 2, and Withdraw at once
    await page.click('#arena-page-first');
    await waitText(page, '#arena-page-shown', /^Page 1 of 2$/);
    await page.click('#arena-join-btn');
    await waitText(page, '#arena-join-btn', /^Withdraw$/);
    await waitText(page, '#arena-page-shown', /^Page 1 of 2$/);
    assert.equal(await page.locator('#arena-standings tr.mine').count(), 0);
    await page.click('#arena-page-mine');
    await waitText(page, '#arena-page-shown', /^Page 2 of 2$/);
    await waitText(page, '#arena-standings tr.mine',
                   new RegExp(`^12${nameA}`));
    assert.deepEqual(await axeSerious(page), [], 'paged standings');

    // withdrawn from page 1 (before the start: no longer listed), back in
    await page.click('#arena-page-prev');
    await waitText(page, '#arena-page-shown', /^Page 1 of 2$/);
    await page.click('#arena-join-btn');
    await waitText(page, '#arena-join-btn', /^Join$/);
    assert.equal(await page.locator('#arena-page-mine').count(), 0);
    await page.click('#arena-join-btn');
    await waitText(page, '#arena-join-btn', /^Withdraw$/);

    // the list shows it as starting soon; its page opens on A's own page
    await page.click('#arena-link');
    await waitText(page, '#arena-open', /Paged.*12 players/);
    await page.click('#arena-open a');
    await waitText(page, '#arena-page-shown', /^Page 2 of 2$/);
    await waitText(page, '#arena-standings tr.mine', new RegExp(nameA));

    // the organiser ends it: the podium on every page, no more Join
    await page.evaluate((eid) => new Promise((ok, fail) => {
        const ws = new WebSocket(`ws://${location.host}/ws`, 'chess.v1');
        ws.onopen = () => ws.send(JSON.stringify(
            { t: 'hello', token: localStorage.getItem('chess.token') }));
        ws.onmessage = (ev) => {
            const m = JSON.parse(ev.data);
            if (m.t === 'welcome')
                ws.send(JSON.stringify({ t: 'arena_terminate', event: eid }));
            else if (m.t === 'arena_terminated')
                ok(ws.close());
            else if (m.t === 'error')
                fail(new Error(m.msg));
        };
    }), eid);
    await waitText(page, '#arena-podium', /^g00.*g01.*g02/);
    await waitText(page, '#arena-page-shown', /^Page 2 of 2$/);
    assert.equal(await page.locator('#arena-join-btn').count(), 0);

    // a server that does not page (as a cluster's copy of an event may
    // answer): the page cuts its best 200 into pages itself
    const c = await openPlayer(browser, `${server.base}/t/${eid}`, {
        beforeGoto: (p) => p.routeWebSocket(/\/ws$/, (ws) => {
            const up = ws.connectToServer();
            ws.onMessage((m) => {
                const msg = JSON.parse(m);
                delete msg.page;
                up.send(JSON.stringify(msg));
            });
        }) });
    await waitText(c.page, '#arena-page-shown', /^Page 1 of 2$/);
    await waitText(c.page, '#arena-podium', /^g00/);
    assert.equal(await c.page.locator('#arena-standings tbody tr').count(),
                 10);
    await c.page.click('#arena-page-next');
    await waitText(c.page, '#arena-standings tbody', /^11g10.*12/);

    // a Swiss's standings page the same way (A, joined 12th, is listed
    // after the 11 guests until the first pairing ranks him)
    await page.click('#arena-link');
    await page.fill('#swiss-start', '5');
    await page.click('#swiss-create-btn');
    await page.waitForURL(/\/t\/[A-Za-z0-9_-]+\?swiss$/);
    const sid = new URL(page.url()).pathname.split('/')[2];
    await waitText(page, '#swiss-countdown', /round 1 in [45]:\d\d/);
    await guestsJoin(page, sid, 11, 'swiss');
    await waitText(page, '#swiss-page-shown', /^Page 1 of 2$/);
    await page.click('#swiss-join-btn');
    await waitText(page, '#swiss-join-btn', /^Withdraw$/);
    await page.click('#swiss-page-next');
    await waitText(page, '#swiss-page-shown', /^Page 2 of 2$/);
    await waitText(page, '#swiss-standings tr.mine', new RegExp(nameA));
    await page.click('#swiss-page-prev');
    await waitText(page, '#swiss-page-shown', /^Page 1 of 2$/);
    await page.click('#swiss-join-btn');
    await waitText(page, '#swiss-join-btn', /^Join$/);
    // on page 2 when a guest leaves: 10 players, one page, shown
    await page.click('#swiss-page-next');
    await waitText(page, '#swiss-standings tbody', /g10/);
    await page.evaluate((sid) => window.guests.at(-1).send(JSON.stringify(
        { t: 'swiss_withdraw', event: sid })), sid);
    await waitText(page, '#swiss-page-shown', /^Page 1 of 1$/);
    await page.click('#arena-link');
    await waitText(page, '#swiss-open', /Swiss.*round 0 of 5.*10 players/);
    await waitText(page, '#arena-finished', /Paged.*12 players/);
    assertClean(t, a, c);
});
