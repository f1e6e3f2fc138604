// Guests marked (issue 25 item 10): a guest may take an account's name,
// so the game page's player bars and the lobby's live games say which
// player is a guest (PLAYER's "account"); the account is not marked.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, guestNamed, invite, join, openPlayer, register, screenshot,
    twoPlayers, waitText,
} from './lib.mjs';

// What `color`'s bar shows: its name and whether the guest mark is on.
function barOf(page, color) {
    return page.evaluate((c) => {
        const bar = document.querySelector(`.pbar[data-color="${c}"]`);
        return { name: bar.querySelector('.plink').textContent,
                 guest: !bar.querySelector('.pguest').closest('[hidden]'),
                 title: bar.querySelector('.name').title };
    }, color);
}

test('a guest with an account\'s name is marked on the board and in the ' +
     'lobby', { timeout: 90000 }, async (t) => {
    const { server, browser, a, b } = await twoPlayers(t, {
        b: { phone: true } });
    await register(a.page, 'alice_g');
    await guestNamed(b.page, 'alice_g');
    const watcher = await openPlayer(browser, `${server.base}/`);
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    for (const p of [a, b]) {
        await waitText(p.page, '#status', /move/);
        assert.deepEqual(await barOf(p.page, 'white'),
                         { name: 'alice_g', guest: false,
                           title: 'White: alice_g' });
        assert.deepEqual(await barOf(p.page, 'black'),
                         { name: 'alice_g', guest: true,
                           title: 'Black: alice_g (a guest, not an account)' });
    }
    await screenshot(b.page, 'guest-marked-phone.png');
    // the live games of the lobby: the guest marked, the account not
    await waitText(watcher.page, '#live-list', /alice_g/);
    assert.equal(await watcher.page.evaluate(() =>
        document.querySelector('#live-list .live-players').textContent),
    'alice_g – alice_g guest');
    assert.equal(await watcher.page.locator(
        '#live-list .live-players .seek-guest').count(), 1);
    await screenshot(watcher.page, 'guest-marked-lobby.png');
    assertClean(t, a, b, watcher);
});
