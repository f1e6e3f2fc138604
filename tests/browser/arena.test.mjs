// Arena tournaments: A creates one from the Tournaments page with a
// password (an entry condition the event's page shows), B is refused
// without it, A and B join with it on its page and see each other in the
// standings, are paired (the
// game page names the event with a link back), A berserks before his
// first move (both game pages mark it; his button goes), B resigns, and
// the standings show A's 2 points live with the berserk mark (struck: too
// short for its point). The pages are axe-clean.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, confirm, myName, openPlayer, twoPlayers,
    waitText,
} from './lib.mjs';

test('create, join, play and see the standings move', { timeout: 120000 },
     async (t) => {
    const conf = pathJoin(mkdtempSync(pathJoin(tmpdir(), 'chess-arena-')),
                          'config.json');
    writeFileSync(conf, JSON.stringify({ arena_create: 2 }));
    const { server, browser, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', conf] }, b: { phone: true } });
    const nameA = await myName(a.page);
    const nameB = await myName(b.page);

    await a.page.click('#arena-link');
    await waitText(a.page, '#arena-list', /No tournaments yet/);
    assert.deepEqual(await axeSerious(a.page), [], 'tournaments page');
    await a.page.fill('#arena-name', 'Club_arena');
    await a.page.fill('#arena-minutes', '1');
    await a.page.fill('#arena-inc', '0');
    await a.page.fill('#arena-duration', '2');
    await a.page.fill('#arena-start', '0');
    await a.page.fill('#arena-pw', 'club-7');
    await a.page.check('#arena-bots');
    await a.page.uncheck('#arena-streaks');
    await a.page.click('#arena-create-btn');
    await a.page.waitForURL(/\/t\/[A-Za-z0-9_-]+$/);
    const url = a.page.url();
    await waitText(a.page, '#arena-name-shown', /Club_arena/);
    await waitText(a.page, '#arena-event', /Nobody has joined yet/);
    await waitText(a.page, '#arena-conditions',
                   /To join: a password\. Bot accounts may play\. No streaks\./);

    // C watches from the list; B opens the event's page, both join
    const c = await openPlayer(browser, `${server.base}/tournaments`);
    await waitText(c.page, '#arena-list', /Club_arena.*Running.*0 players/);
    await c.page.click('#arena-list a');
    await c.page.waitForURL(url);
    await waitText(c.page, '#arena-event', /Nobody has joined yet/);
    await b.page.goto(url);
    await b.page.fill('#arena-join-pw', 'wrong');
    await b.page.click('#arena-join-btn');
    await waitText(b.page, '#toasts', /password: not this tournament's/);
    await b.page.fill('#arena-join-pw', 'club-7');
    await b.page.click('#arena-join-btn');
    await waitText(a.page, '#arena-standings', new RegExp(nameB));
    assert.deepEqual(await axeSerious(a.page), [], 'event page');
    await a.page.fill('#arena-join-pw', 'club-7');
    await a.page.click('#arena-join-btn');
    await waitText(c.page, '#arena-standings', new RegExp(nameA));

    // paired within a second: both on the game page, which names the event
    await a.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await b.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await waitText(a.page, '#game-arena', /Tournament: Club_arena/);
    assert.equal(new URL(await a.page.getAttribute('#game-arena a', 'href'),
                         url).href, url);
    // A berserks: half his time, no increment; B's page marks it too
    await a.page.click('#berserk-btn');
    await waitText(b.page, '#game-berserk', /⚔ (White|Black) berserk/);
    await waitText(a.page, '#game-berserk', /⚔ (White|Black) berserk/);
    assert.equal(await a.page.isHidden('#berserk-btn'), true);
    assert.equal(await b.page.isVisible('#berserk-btn'), true);
    // from the game to its event and back: the event's page offers A's
    // game (lichess's "You are playing")
    const game = a.page.url();
    await a.page.click('#game-arena a');
    await a.page.waitForURL(url);
    await a.page.click('#arena-my-game');
    await a.page.waitForURL(game);
    // a move each (before them the game offers abort, not resign)
    await waitText(a.page, '#status', /Your move|Waiting for your opponent/);
    const aWhite = /Your move/.test(await a.page.textContent('#status'));
    const [w, bl] = aWhite ? [a, b] : [b, a];
    await clickMove(w.page, 'e2e4');
    await waitText(bl.page, '#status', /Your move/);
    await clickMove(bl.page, 'e7e5');
    await waitText(w.page, '#status', /Your move/);
    await b.page.click('#resign-btn');
    await confirm(b.page, true);

    // the watcher's standings move: A first with 2 points, B 0
    await waitText(c.page, '#arena-standings tbody tr:first-child',
                   new RegExp(nameA));
    await waitText(c.page,
                   '#arena-standings tbody tr:first-child .arena-score',
                   /^2$/);
    await waitText(c.page,
                   '#arena-standings tbody tr:first-child .arena-sheet',
                   /^2⚔$/);
    await waitText(c.page,
                   '#arena-standings tbody tr:nth-child(2) .arena-sheet',
                   /^0$/);
    assert.deepEqual(await axeSerious(c.page), [], 'standings');
    assertClean(t, a, b, c);
});
