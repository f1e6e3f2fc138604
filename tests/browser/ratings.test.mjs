// Ratings in the client (PROTOCOL.md section 5, "Rated games"; the HTTP
// API's players and leaderboard): the lobby's rated switch (greyed out for
// a guest, with why), a rated invitation a guest cannot join, two accounts
// playing a rated game and its rated rematch (Rated and the category near
// the board, ratings beside the names with ? while provisional, each
// rating change on the end panel, the lobby's rating after it), and the
// leaderboard page: its empty state, a non-provisional player listed (its
// RD set low in the database while the server is down, as
// tests/integration/test_ratings.py does) and a player's ratings with
// their SVG graphs.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, invite, join, register, screenshot,
    twoPlayers, waitText,
} from './lib.mjs';

async function api(server, path) {
    const r = await fetch(`${server.base}${path}`);
    return r.json();
}

// The rating of `color`'s bar ('' when hidden).
async function barRating(page, color) {
    return page.evaluate((c) => {
        const bar = document.querySelector(`.pbar[data-color="${c}"]`);
        const r = bar.querySelector('.prating');
        return r.closest('[hidden]') ? '' : r.textContent;
    }, color);
}

// The end panel's rating changes: { white: text, black: text }.
async function endRatings(page) {
    await waitText(page, '#end-ratings li', /./);
    return page.evaluate(() => Object.fromEntries(
        [...document.querySelectorAll('#end-ratings li')]
            .map((li) => [li.dataset.color, li.textContent])));
}

// "name: BEFORE → AFTER DIFF" with DIFF the signed difference.
function checkChange(line, name, before, after) {
    const d = after - before;
    const sign = d > 0 ? `+${d}` : d < 0 ? `\u2212${-d}` : '\u00b10';
    assert.match(line, new RegExp(`^${name}( \\(you\\))?: ${before} → ${
        after} ${sign.replace('+', '\\+')}$`));
}

test('a guest cannot choose rated, nor join a rated invitation',
     { timeout: 120000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t);
    const why = /^Rated games need an account: sign up or log in\.$/;
    await waitText(b.page, '#rated-why', why);
    assert.equal(await b.page.isDisabled('#rated-yes'), true);
    assert.equal(await b.page.isChecked('#rated-no'), true);
    // a click on the greyed-out label changes nothing
    await b.page.click('label[for="rated-yes"]', { force: true });
    assert.equal(await b.page.isChecked('#rated-no'), true);
    assert.equal(await b.page.isHidden('#my-rating'), true);

    await register(a.page, 'ann_rated');
    assert.equal(await a.page.isDisabled('#rated-yes'), false);
    assert.equal(await a.page.isHidden('#rated-why'), true);
    await waitText(a.page, '#my-rating', /^Your blitz rating: 1500\?$/);
    await a.page.click('label[for="tc-1-0"]');
    await waitText(a.page, '#my-rating', /^Your bullet rating: 1500\?$/);
    await a.page.click('label[for="rated-yes"]');
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await waitText(a.page, '#kind-text', /^Rated blitz · 5\+3$/);
    assert.deepEqual((await api(server, `/api/games/${
        link.split('/').pop()}`)).rated, true);

    await b.page.goto(link);
    await waitText(b.page, '#join-text', /, rated\. You play Black\. Rated games need an account/);
    assert.equal(await b.page.isDisabled('#join-btn'), true);
    assertClean(t, a, b);
});

test('a rated game and its rematch between two accounts; the leaderboard',
     { timeout: 180000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t);
    const pa = await register(a.page, 'alice_r');
    const pb = await register(b.page, 'bob_r');
    await a.page.click('label[for="rated-yes"]');
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    for (const p of [a, b]) {
        await waitText(p.page, '#kind-text', /^Rated blitz · 5\+3$/);
        assert.equal(await barRating(p.page, 'white'), '1500?');
        assert.equal(await barRating(p.page, 'black'), '1500?');
    }
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    await a.page.click('#resign-btn');
    await confirm(a.page, true);
    await waitText(a.page, '#end-title', /^You lost$/);
    await waitText(b.page, '#end-title', /^You won$/);

    const ra = (await api(server, `/api/players/${pa}`)).ratings.blitz;
    const rb = (await api(server, `/api/players/${pb}`)).ratings.blitz;
    assert.ok(ra.rating < 1500 && rb.rating > 1500, `${ra.rating} ${rb.rating}`);
    for (const p of [a, b]) {
        const lines = await endRatings(p.page);
        checkChange(lines.white, 'alice_r', 1500, ra.rating);
        checkChange(lines.black, 'bob_r', 1500, rb.rating);
    }
    await screenshot(b.page, 'rated-end.png');

    // the rematch is rated too, colours swapped, with the new ratings
    await a.page.click('#rematch-btn');
    await waitText(b.page, '#rematch-note', /offers a rematch/);
    await b.page.click('#rematch-accept-btn');
    await a.page.waitForURL((u) => !u.pathname.endsWith(link.split('/')
        .pop()));
    for (const p of [a, b]) {
        await waitText(p.page, '#kind-text', /^Rated blitz · 5\+3$/);
        await p.page.waitForFunction(() =>
            document.getElementById('end-panel').hidden);
        assert.equal(await barRating(p.page, 'white'), `${rb.rating}?`);
        assert.equal(await barRating(p.page, 'black'), `${ra.rating}?`);
    }
    await clickMove(b.page, 'd2d4');
    await clickMove(a.page, 'd7d5');
    await b.page.click('#resign-btn');
    await confirm(b.page, true);
    await waitText(b.page, '#end-title', /^You lost$/);
    const ra2 = (await api(server, `/api/players/${pa}`)).ratings.blitz;
    const rb2 = (await api(server, `/api/players/${pb}`)).ratings.blitz;
    const lines = await endRatings(a.page);
    checkChange(lines.white, 'bob_r', rb.rating, rb2.rating);
    checkChange(lines.black, 'alice_r', ra.rating, ra2.rating);

    // the lobby shows the rating the games left
    await a.page.click('#new-game-link');
    await waitText(a.page, '#my-rating', new RegExp(
        `^Your blitz rating: ${ra2.rating}\\?$`));

    // the leaderboard: both provisional, so nobody yet
    await a.page.click('#leaderboard-link');
    await a.page.waitForURL(/\/leaderboard$/);
    await waitText(a.page, '#lb-panel', /^No one is on the blitz leaderboard yet\./);
    assert.equal(await a.page.getAttribute('#lb-tab-blitz', 'aria-selected'),
                 'true');

    // alice's blitz RD set low while the server is down: she is listed,
    // bob (provisional) is not
    await server.restart(async () => {
        const py = spawnSync('python3', ['-c', `
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("UPDATE ratings SET rd = 60 WHERE pid = ? AND category = 'blitz'",
               (sys.argv[2],)).rowcount
db.commit()
sys.exit(0 if n == 1 else 1)`, server.db, pa], { encoding: 'utf8' });
        assert.equal(py.status, 0, py.stderr);
    });
    await b.page.goto(`${server.base}/leaderboard`);
    await waitText(b.page, '#lb-panel', /alice_r/);
    const rows = await b.page.evaluate(() =>
        [...document.querySelectorAll('#lb-panel tbody tr')].map((tr) => ({
            cells: [...tr.cells].map((c) => c.textContent),
            href: tr.querySelector('a').getAttribute('href'),
        })));
    assert.deepEqual(rows, [{ cells: ['1', 'alice_r', String(ra2.rating), '2'],
                              href: `/p/${pa}` }]);
    await b.page.click('#lb-tab-bullet');
    await waitText(b.page, '#lb-panel', /^No one is on the bullet leaderboard yet\./);
    assert.match(b.page.url(), /\/leaderboard\?category=bullet$/);
    await screenshot(b.page, 'leaderboard.png');

    // a player's ratings with the graph of each category
    for (const [pid, name, r, prov] of [[pa, 'alice_r', ra2.rating, false],
                                        [pb, 'bob_r', rb2.rating, true]]) {
        await b.page.goto(`${server.base}/leaderboard?player=${pid}`);
        await waitText(b.page, '#lb-player-title', new RegExp(
            `^Ratings of ${name}$`));
        const cat = b.page.locator('#lb-ratings .rating-cat');
        assert.equal(await cat.count(), 1);
        assert.equal(await cat.getAttribute('data-category'), 'blitz');
        assert.equal(await cat.locator('.rating-value').textContent(),
                     `${r}${prov ? '?' : ''}`);
        const facts = await cat.locator('dd').allTextContents();
        assert.equal(facts[1], '2');
        assert.equal(facts[2], '1 / 0 / 1');     // one win each
        const graph = cat.locator('svg[role="img"]');
        assert.equal(await graph.locator('circle').count(), 2);
        assert.equal(await graph.locator('polyline').count(), 1);
        const hist = (await api(server, `/api/players/${pid}/ratings/blitz`))
            .points.map((p) => p.rating);
        assert.equal(await graph.getAttribute('aria-label'),
                     `Blitz rating over 2 rated games: first ${hist[0]}, ` +
                     `last ${hist[1]}, lowest ${Math.min(...hist)}, ` +
                     `highest ${Math.max(...hist)}.`);
        assert.equal(hist[1], r);
    }
    await screenshot(b.page, 'ratings.png');

    // the player's own page shows the same ratings above its games, and
    // the leaderboard's name link leads there
    await b.page.goto(`${server.base}/leaderboard?category=blitz`);
    await b.page.click(`#lb-panel a[href="/p/${pa}"]`);
    await b.page.waitForURL(`${server.base}/p/${pa}`);
    const own = b.page.locator('#player-ratings .rating-cat');
    await own.first().waitFor();
    assert.equal(await own.count(), 1);
    assert.equal(await own.locator('.rating-value').textContent(),
                 String(ra2.rating));
    assert.equal(await own.locator('svg[role="img"] circle').count(), 2);
    await b.page.locator('#player-games li').first().waitFor();
    assert.equal(await b.page.locator('#player-games li').count(), 2);
    // each game of the list is marked rated, with alice's rating after it
    // and the change (the newest first: the rematch)
    const deltas = await b.page.locator('#player-games .hdelta')
        .allTextContents();
    const signed = (d) => `${d > 0 ? '+' : d < 0 ? '\u2212' : '±'}${
        Math.abs(d)}`;
    assert.deepEqual(deltas, [`${ra2.rating} (${signed(ra2.rating - ra.rating)})`,
                              `${ra.rating} (${signed(ra.rating - 1500)})`]);
    assert.match(await b.page.locator('#player-games .hmeta').first()
        .textContent(), / · Rated · /);
    // and the opening each reached (1. d4 d5, then 1. e4 e5)
    assert.deepEqual(await b.page.locator('#player-games .hopening')
        .allTextContents(), ['D00 Queen\'s Pawn Game', 'C20 King\'s Pawn Game']);
    assertClean(t, a, b);
});
