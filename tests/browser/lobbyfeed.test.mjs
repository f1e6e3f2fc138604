// The lobby's open seeks and live games (lobby_watch): a seek appears and
// goes in another page live, your own is marked with a cancel, a click on
// another's starts the game for both; a live game from the list opens to
// watch and shows its moves live; the link to your finished games.
// Screenshots of the lobby at desktop and phone size.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import {
    assertClean, chooseLobby, clickMove, moveCount, myName, openPlayer,
    screenshot, SHOTS, twoPlayers, waitText,
} from './lib.mjs';

test('open seeks live, click to play, watch a live game, history link',
     { timeout: 120000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t, {
        b: { phone: true } });
    const nameA = await myName(a.page);
    const nameB = await myName(b.page);

    // nothing open yet
    await waitText(b.page, '#seeks-empty', /Nobody is waiting/);
    await waitText(b.page, '#live-empty', /No games/);

    // A seeks: B's list shows it within a tick, A's marks it as A's own
    await chooseLobby(a.page, '3-2', 'white');
    await waitText(b.page, '#seeks-list', new RegExp(
        `${nameA}.*3\\+2.*You play black.*Casual`));
    await waitText(a.page, '#seeks-list .seek-row.mine', /Your seek/);
    assert.equal(await a.page.locator('#seeks-list .seek-play').count(), 0);

    // A cancels from the list: it goes from B's
    await a.page.click('#seeks-list .seek-cancel');
    await a.page.locator('#seeking').waitFor({ state: 'hidden' });
    await waitText(b.page, '#seeks-empty', /Nobody is waiting/);

    // A seeks again; a third player watches the lobby on a desktop
    await a.page.click('#seek-btn');
    const c = await openPlayer(browser, `${server.base}/`);
    await waitText(c.page, '#seeks-list', new RegExp(nameA));
    await screenshot(c.page, 'lobbyfeed-desktop-seeks.png');
    await screenshot(a.page, 'lobbyfeed-desktop-own.png');
    const phoneShot = pathJoin(SHOTS, 'lobbyfeed-phone.png');
    await waitText(b.page, '#seeks-list', new RegExp(nameA));
    mkdirSync(SHOTS, { recursive: true });
    await b.page.screenshot({ path: phoneShot, fullPage: true });

    // B clicks A's row: the game starts for both, B black
    await b.page.click(`#seeks-list li:has-text("${nameA}") .seek-clock`);
    await a.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await b.page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    const gid = new URL(a.page.url()).pathname.split('/')[2];
    assert.equal(new URL(b.page.url()).pathname, `/g/${gid}`);
    await waitText(a.page, '#status', /Your move/);
    await waitText(b.page, '#status', /Waiting for your opponent/);

    // C sees the game in the live list (and the seek gone), opens it
    await waitText(c.page, '#seeks-empty', /Nobody is waiting/);
    await waitText(c.page, '#live-list', new RegExp(
        `${nameA} guest – ${nameB} guest.*3\\+2, casual, starting`));
    await screenshot(c.page, 'lobbyfeed-desktop.png');
    await c.page.click(`#live-list a[data-game="${gid}"]`);
    await c.page.waitForURL(new RegExp(`/g/${gid}$`));
    await waitText(c.page, '#status', /White to move|Waiting|to move/i);

    // the moves reach the spectator live
    await clickMove(a.page, 'e2e4');
    await c.page.waitForFunction(
        () => document.querySelectorAll('#moves button.move').length === 1);
    await clickMove(b.page, 'e7e5');
    await c.page.waitForFunction(
        () => document.querySelectorAll('#moves button.move').length === 2);
    assert.equal(await moveCount(c.page), 2);

    // back in the lobby, the list shows the moves; the history link
    await c.page.goto(`${server.base}/`);
    await waitText(c.page, '#conn-text', /^Online$/);
    await waitText(c.page, '#live-list', /move 1/);
    await c.page.click('#my-history');
    await c.page.waitForURL(/\/p\/[A-Za-z0-9_-]+$/);
    await waitText(c.page, '#player-title', /Your games/);
    assertClean(t, a, b, c);
});
