// A tournament game's page names its event from the game's state (issue
// 31; PROTOCOL.md section 7, "event"), not only from the arena_game its
// players get once: after a reload the game page still shows
// "Tournament: NAME" with the link to the event, and the Berserk button
// for the player before his first move; a spectator who opens the game
// gets the link but no Berserk button.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, myName, openPlayer, twoPlayers, waitText,
} from './lib.mjs';

test('a reload and a spectator keep the tournament link',
     { timeout: 120000 }, async (t) => {
    const conf = pathJoin(mkdtempSync(pathJoin(tmpdir(), 'chess-link-')),
                          'config.json');
    writeFileSync(conf, JSON.stringify({ arena_create: 2 }));
    const { browser, a, b } = await twoPlayers(t, {
        server: { extra: ['--config', conf] } });

    await a.page.click('#arena-link');
    await a.page.fill('#arena-name', 'Link_arena');
    await a.page.fill('#arena-minutes', '1');
    await a.page.fill('#arena-inc', '0');
    await a.page.fill('#arena-duration', '2');
    await a.page.fill('#arena-start', '0');
    await a.page.click('#arena-create-btn');
    await a.page.waitForURL(/\/t\/[A-Za-z0-9_-]+$/);
    const url = a.page.url();
    await b.page.goto(url);
    await b.page.click('#arena-join-btn');
    await waitText(a.page, '#arena-standings',
                   new RegExp(await myName(b.page)));
    await a.page.click('#arena-join-btn');
    await a.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await b.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    const game = a.page.url();
    await waitText(a.page, '#game-arena', /Tournament: Link_arena/);

    // A reloads: the state names the event, the button is back
    await a.page.reload();
    await waitText(a.page, '#conn-text', /^Online$/);
    await waitText(a.page, '#game-arena', /Tournament: Link_arena/);
    assert.equal(new URL(await a.page.getAttribute('#game-arena a', 'href'),
                         url).href, url);
    await a.page.waitForSelector('#berserk-btn', { state: 'visible' });

    // a spectator: the link, no Berserk button
    const c = await openPlayer(browser, game);
    await waitText(c.page, '#game-arena', /Tournament: Link_arena/);
    assert.equal(new URL(await c.page.getAttribute('#game-arena a', 'href'),
                         url).href, url);
    assert.equal(await c.page.isHidden('#berserk-btn'), true);

    // the link leads to the event's page
    await c.page.click('#game-arena a');
    await c.page.waitForURL(url);
    await waitText(c.page, '#arena-name-shown', /Link_arena/);
    assertClean(t, a, b, c);
});
